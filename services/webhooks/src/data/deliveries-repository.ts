import { randomUUID } from 'node:crypto';
import { execute, isUuid, scopeBind, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

/** 'skipped' = stopped because the endpoint was disabled or deleted; shown as failed. */
export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'skipped';

/** Dispatchers LISTEN on this channel; a commit that makes deliveries due NOTIFYs it. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

export interface DeliveryRecord {
  id: string;
  seq: number;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: DeliveryState;
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

interface DeliveryRow {
  id: string;
  seq: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryState;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, seq, endpoint_id, event_id, event_type, attempt, status, response_status, error, duration_ms, next_attempt_at, created_at';

function toRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    error: row.error,
    durationMs: row.duration_ms,
    nextAttemptAt: row.next_attempt_at ? new Date(row.next_attempt_at) : null,
    createdAt: new Date(row.created_at),
  };
}

export interface DeliveryFilter {
  states?: DeliveryState[];
  eventType?: string;
}

export function createDeliveriesRepository(db: Sequelize) {
  /** The caller's transaction (a write's effect transaction), or one of its own. */
  const inTransaction = <T>(outer: Transaction | undefined, fn: (transaction: Transaction) => Promise<T>): Promise<T> => (outer ? fn(outer) : db.transaction(fn));
  const notify = (transaction: Transaction) => execute(db, `SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`, {}, transaction);

  return {
    notify,

    /** Newest first; `beforeSeq` is the keyset position of the previous page (0 = first page). */
    async list(endpointId: string, filter: DeliveryFilter, beforeSeq: number, limit: number): Promise<DeliveryRecord[]> {
      const rows = await selectRows<DeliveryRow>(
        db,
        `SELECT ${COLUMNS} FROM deliveries
         WHERE endpoint_id = $endpoint
           AND ($before = 0 OR seq < $before)
           AND ($states::text[] IS NULL OR status = ANY($states::text[]))
           AND ($type::text IS NULL OR event_type = $type::text)
         ORDER BY seq DESC LIMIT $limit`,
        { endpoint: endpointId, before: beforeSeq, states: filter.states ?? null, type: filter.eventType ?? null, limit },
      );
      return rows.map(toRecord);
    },

    async find(endpointId: string, id: string, transaction?: Transaction): Promise<DeliveryRecord | undefined> {
      if (!isUuid(id)) return undefined;
      const rows = await selectRows<DeliveryRow>(
        db,
        `SELECT ${COLUMNS} FROM deliveries WHERE id = $id AND endpoint_id = $endpoint`,
        { id, endpoint: endpointId },
        transaction,
      );
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    /** One more attempt now, whatever the delivery's state; it keeps its event id and body. */
    async scheduleNow(id: string, retriesInSchedule: number, outer?: Transaction): Promise<void> {
      await inTransaction(outer, async (transaction) => {
        // A finished delivery gets exactly one more attempt; a pending one just moves its next attempt forward.
        await execute(
          db,
          `UPDATE deliveries SET
             attempt_base = CASE WHEN status = 'pending' THEN attempt_base ELSE attempt - $retries END,
             status = 'pending', next_attempt_at = now(), updated_at = now()
           WHERE id = $id`,
          { id, retries: retriesInSchedule },
          transaction,
        );
        await notify(transaction);
      });
    },

    /** Re-enabling: the deliveries stopped or failed since `since` are due again (a fresh retry budget). */
    async rescheduleSince(endpointId: string, since: Date, transaction: Transaction): Promise<number> {
      const rows = await selectRows<{ id: string }>(
        db,
        `UPDATE deliveries SET status = 'pending', attempt_base = attempt, next_attempt_at = now(), updated_at = now()
         WHERE endpoint_id = $endpoint AND status IN ('failed', 'skipped') AND created_at >= $since RETURNING id`,
        { endpoint: endpointId, since },
        transaction,
      );
      if (rows.length > 0) await notify(transaction);
      return rows.length;
    },

    /**
     * recover (SPEC 17): every delivery of the endpoint shown as failed (failed, or skipped when the
     * endpoint was disabled) whose last attempt was at or after `since` (one stopped before any
     * attempt: when it was stopped) is due again now with a fresh retry budget, in one statement.
     * A second call while they are pending finds none.
     */
    async recoverSince(endpointId: string, since: Date, transaction: Transaction): Promise<number> {
      const rows = await selectRows<{ id: string }>(
        db,
        `UPDATE deliveries SET status = 'pending', attempt_base = attempt, next_attempt_at = now(), updated_at = now()
         WHERE endpoint_id = $endpoint AND status IN ('failed', 'skipped') AND coalesce(last_attempt_at, updated_at) >= $since RETURNING id`,
        { endpoint: endpointId, since },
        transaction,
      );
      if (rows.length > 0) await notify(transaction);
      return rows.length;
    },

    /** A synthetic event for one endpoint, recorded like any other delivery. */
    async insertTest(
      input: { endpointId: string; eventId: string; eventType: string; scope: TenantScope; body: string; createdAt: Date },
      outer?: Transaction,
    ): Promise<string> {
      const id = randomUUID();
      await inTransaction(outer, async (transaction) => {
        await execute(
          db,
          `INSERT INTO events (id, organization_id, livemode, type, body, created_at) VALUES ($eventId, $org, $livemode, $type, $body, $createdAt)`,
          { eventId: input.eventId, ...scopeBind(input.scope), type: input.eventType, body: input.body, createdAt: input.createdAt },
          transaction,
        );
        await execute(
          db,
          `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, next_attempt_at)
           VALUES ($id, $endpoint, $eventId, $type, 'pending', now())`,
          { id, endpoint: input.endpointId, eventId: input.eventId, type: input.eventType },
          transaction,
        );
        await notify(transaction);
      });
      return id;
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;
