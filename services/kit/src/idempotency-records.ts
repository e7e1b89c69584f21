import type { Sequelize } from 'sequelize';
import { affectedRows, deleteInBatches, type RetentionTask } from './retention';
import { selectRows } from './sql';

/** Each service's `idempotency_records` table (idempotency.ts writes and reads it): its DDL and its retention. */

/** How long a key is remembered: a retry within this window replays, after it the key is new. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The records table, in the service's schema. Add it to the service's migrations once. */
export const IDEMPOTENCY_RECORDS_DDL = `
  CREATE TABLE idempotency_records (
    scope text NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text NOT NULL,
    operation text NOT NULL,
    response bytea,
    error_code text,
    error_message text,
    error_param text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, idempotency_key)
  );
  CREATE INDEX idempotency_records_created_at ON idempotency_records (created_at);
`;

/** Deletes records older than the horizon (default: the key lifetime); returns how many. */
export async function deleteExpiredIdempotencyRecords(db: Sequelize, horizonMs = IDEMPOTENCY_KEY_LIFETIME_MS): Promise<number> {
  const rows = await selectRows<{ n: string }>(
    db,
    `WITH gone AS (DELETE FROM idempotency_records WHERE created_at <= now() - make_interval(secs => $secs) RETURNING 1)
     SELECT count(*)::text AS n FROM gone`,
    { secs: Math.max(horizonMs, 0) / 1000 },
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The retention task of a service's idempotency records (kit retention.ts): records older than the
 * horizon go, in batches. The horizon is never shorter than the key lifetime: a younger record is
 * the answer a retry must get.
 */
export function idempotencyRecordsRetention(db: Sequelize, horizonMs = IDEMPOTENCY_KEY_LIFETIME_MS): RetentionTask {
  return {
    name: 'idempotency records',
    horizonMs: Math.max(horizonMs, IDEMPOTENCY_KEY_LIFETIME_MS),
    run: (cutoff) =>
      deleteInBatches((batch) =>
        affectedRows(
          db,
          `DELETE FROM idempotency_records WHERE ctid = ANY (ARRAY(SELECT ctid FROM idempotency_records WHERE created_at <= $cutoff LIMIT $batch))`,
          { cutoff, batch },
        ),
      ),
  };
}
