import { z } from 'zod';
import type { Sequelize } from 'sequelize';
import { deleteInBatches, envDuration, type RetentionTask } from './retention';
import { selectOne } from './sql';

/**
 * The audit_entries table of a service that owns changes (auth, accounts, webhooks): add it to
 * the service's migrations once, like IDEMPOTENCY_RECORDS_DDL.
 *
 * Append-only for the service itself: a trigger refuses every UPDATE and every DELETE, and
 * TRUNCATE, whoever runs them (the service's role included, even a superuser: privileges would not
 * bind one). The one exception is the retention pass (auditRetention below): inside its own
 * transaction it names a cutoff in the transaction-local setting propdesk.audit_retention_cutoff,
 * and the trigger lets through the deletion of rows older than that cutoff only, and only when the
 * cutoff is itself at least 12 hours old (AUDIT_RETENTION is at least a day), so no setting makes
 * a recent entry deletable.
 *
 * `id` sorts bytewise (COLLATE "C"): the listing's order, its keyset cursors and the gateway's
 * merge of three services' pages compare ids the same way. Every entry is an insert into each
 * index, so there are few: the listing (newest first, per organization and mode) and the filters
 * that select few entries among many (an action, a target, whose type, when asked too, is checked
 * on the target's few entries, an actor); a filter on target type alone reads the listing's order
 * (there are few types). Entries arrive in time order, so the retention pass finds the old ones
 * through a BRIN range index, which costs an insert next to nothing.
 */
export const AUDIT_ENTRIES_DDL = `
  CREATE TABLE audit_entries (
    id text COLLATE "C" PRIMARY KEY,
    organization_id uuid NOT NULL,
    livemode boolean NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'user', 'operator')),
    actor_id text NOT NULL,
    actor_label text NOT NULL,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    request_id text,
    ip text,
    changes jsonb NOT NULL DEFAULT '{}'
  );
  CREATE INDEX audit_entries_listing ON audit_entries (organization_id, livemode, created_at DESC, id DESC);
  CREATE INDEX audit_entries_by_action ON audit_entries (organization_id, livemode, action, created_at DESC, id DESC);
  CREATE INDEX audit_entries_by_target ON audit_entries (organization_id, livemode, target_id, created_at DESC, id DESC);
  CREATE INDEX audit_entries_by_actor ON audit_entries (organization_id, livemode, actor_id, created_at DESC, id DESC);
  CREATE INDEX audit_entries_created_at ON audit_entries USING brin (created_at);

  CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    cutoff text := current_setting('propdesk.audit_retention_cutoff', true);
  BEGIN
    IF TG_OP = 'DELETE' AND coalesce(cutoff, '') <> ''
       AND cutoff::timestamptz <= now() - interval '12 hours'
       AND OLD.created_at < cutoff::timestamptz THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit entries are append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$;
  CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();
  CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_append_only();
`;

/** The shortest retention the append-only trigger lets the retention pass apply. */
export const MIN_AUDIT_RETENTION_MS = 86_400_000;

/**
 * AUDIT_RETENTION (auth, accounts, webhooks): how long audit entries are kept, a duration like the
 * other *_RETENTION variables [400d]; at least 1d (or off: kept forever).
 */
export const auditRetentionSchema = z.object({
  AUDIT_RETENTION: envDuration('400d').refine((ms) => ms === 0 || ms >= MIN_AUDIT_RETENTION_MS, 'must be at least 1d (or off)'),
});

/**
 * The retention task of a service's audit entries (kit retention.ts): entries older than the
 * horizon go, in batches, each batch one transaction that opens the trigger's gate for its cutoff.
 */
export function auditRetention(db: Sequelize, horizonMs: number): RetentionTask {
  return {
    name: 'audit entries',
    horizonMs,
    run: (cutoff) =>
      deleteInBatches((batch) =>
        db.transaction(async (transaction) => {
          // Transaction-local: the gate closes when this batch commits.
          await selectOne(db, `SELECT set_config('propdesk.audit_retention_cutoff', $cutoff, true) AS cutoff`, { cutoff: cutoff.toISOString() }, transaction);
          const row = await selectOne<{ removed: string }>(
            db,
            `WITH gone AS (
               DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE created_at < $at LIMIT $batch) RETURNING 1)
             SELECT count(*)::text AS removed FROM gone`,
            { at: cutoff, batch },
            transaction,
          );
          return Number(row?.removed ?? 0);
        }),
      ),
  };
}
