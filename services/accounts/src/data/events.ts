import { setTimeout as sleep } from 'node:timers/promises';
import { scopeBind, selectOne, selectRows, toNumber, type Sequelize, type StoredTraceContext, type TenantScope } from '@propdesk/kit';

export interface StoredEvent {
  position: number;
  id: string;
  organizationId: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** Its place in its account's events (SPEC 17); null for an event about no account. */
  sequence: number | null;
  /** The trace context of the transaction that wrote it (outbox.ts); null when it was not traced. */
  trace: StoredTraceContext | null;
}

interface EventRow {
  position: string;
  id: string;
  organization_id: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
  sequence: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

const COLUMNS = 'position, id, organization_id, livemode, type, data, created_at, sequence, traceparent, tracestate';

const toEvent = (row: EventRow): StoredEvent => ({
  position: toNumber(row.position),
  id: row.id,
  organizationId: row.organization_id,
  livemode: row.livemode,
  type: row.type,
  data: row.data,
  createdAt: row.created_at,
  sequence: row.sequence === null ? null : toNumber(row.sequence),
  trace: row.traceparent ? { traceparent: row.traceparent, tracestate: row.tracestate ?? '' } : null,
});

/**
 * Positions come from a sequence taken at insert time, so a lower position may commit after a
 * higher one. Only rows whose transaction is older than every transaction that may still add
 * rows are handed out, so a reader that resumes after position P never misses a row below P.
 *
 * That is `txid < pg_snapshot_xmin(pg_current_snapshot())`, narrowed to transactions of this
 * database: xids are cluster-wide, and a long transaction of another database (other services,
 * other tenants of the server) cannot write our outbox but would hold the whole feed back.
 * It must run as its own statement before the read: a transaction that commits in between is
 * then visible to the read, and one that starts later has an xid at or above the horizon.
 *
 * `running` lists this database's transactions that hold the horizon below `xmax`: once each has
 * ended, every transaction that began before the snapshot is settled and `xmax` is the horizon.
 */
async function snapshotHorizon(sequelize: Sequelize): Promise<{ xmax: string; running: string[] }> {
  const row = await selectOne<{ xmax: string; running: string[] }>(
    sequelize,
    `WITH snap AS (SELECT pg_current_snapshot() AS s)
     SELECT pg_snapshot_xmax(s)::text AS xmax,
       ARRAY(SELECT x::text FROM pg_snapshot_xip(s) AS x
         WHERE (x::text::numeric % 4294967296)::text IN (
           SELECT backend_xid::text FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL)
         ORDER BY x) AS running
     FROM snap`,
  );
  return row!;
}

/** The horizon as it stands: below the oldest of this database's running transactions. */
async function settledHorizon(sequelize: Sequelize): Promise<string> {
  const { xmax, running } = await snapshotHorizon(sequelize);
  return running[0] ?? xmax;
}

/** How long a feed read waits for the transactions under way when it arrived (read-your-writes). */
const FEED_SETTLE_WAIT_MS = 1_000;

/**
 * The horizon of a feed read: every transaction that committed before the read arrived is under
 * it, so a caller sees the event of a write that was answered before it asked. Transactions of
 * this database still under way at the snapshot hold the horizon back; the read waits for those
 * (only those: later ones are above `xmax` anyway), usually for a few milliseconds. A transaction
 * still running after FEED_SETTLE_WAIT_MS keeps the horizon below it, as the stream's reader has
 * it: the feed stays gap-free and the caller sees the event on its next read.
 */
async function readYourWritesHorizon(sequelize: Sequelize): Promise<string> {
  const { xmax, running } = await snapshotHorizon(sequelize);
  let waiting = running;
  const deadline = Date.now() + FEED_SETTLE_WAIT_MS;
  for (let pause = 1; waiting.length > 0; pause = Math.min(pause * 2, 20)) {
    if (Date.now() >= deadline) return waiting[0];
    await sleep(pause);
    const still = await selectOne<{ running: string[] }>(
      sequelize,
      `SELECT ARRAY(SELECT x::text FROM unnest($running::xid8[]) AS x WHERE pg_xact_status(x) = 'in progress' ORDER BY x) AS running`,
      { running: waiting },
    );
    waiting = still!.running;
  }
  return xmax;
}

const SETTLED = 'txid < $horizon::xid8';

/** One mode's events of the organization (SPEC 13), through (organization_id, livemode, [type,] position). */
export async function listEvents(
  sequelize: Sequelize,
  scope: TenantScope,
  type: string | null,
  after: number,
  limit: number,
): Promise<StoredEvent[]> {
  const horizon = await readYourWritesHorizon(sequelize);
  const rows = await selectRows<EventRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM events
      WHERE organization_id = $org AND livemode = $livemode ${type ? 'AND type = $type' : ''} AND position > $after AND ${SETTLED}
      ORDER BY position LIMIT $limit`,
    type ? { ...scopeBind(scope), type, after, limit, horizon } : { ...scopeBind(scope), after, limit, horizon },
  );
  return rows.map(toEvent);
}

/**
 * One account's events of the organization's mode after a sequence number, in sequence order,
 * through the unique (account_number, sequence) index. No settled horizon is needed here: an
 * account's numbers are given in commit order under its row lock, so number K + 1 never becomes
 * visible before K, and a reader that resumes after K misses nothing.
 */
export async function listAccountEvents(
  sequelize: Sequelize,
  scope: TenantScope,
  query: { account: number; type: string | null; afterSequence: number },
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await selectRows<EventRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM events
      WHERE account_number = $account AND sequence > $after AND organization_id = $org AND livemode = $livemode
        ${query.type ? 'AND type = $type' : ''}
      ORDER BY sequence LIMIT $limit`,
    {
      ...scopeBind(scope),
      account: query.account,
      after: query.afterSequence,
      limit,
      ...(query.type ? { type: query.type } : {}),
    },
  );
  return rows.map(toEvent);
}

/**
 * Every organization's settled events of both modes after a position, for the StreamEvents
 * consumer, and the newest settled position (`head`): how far behind the reader is (0 once
 * `after` reaches it).
 */
export async function readSettledEvents(sequelize: Sequelize, after: number, limit: number): Promise<{ events: StoredEvent[]; head: number }> {
  const horizon = await settledHorizon(sequelize);
  const rows = await selectRows<EventRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM events
      WHERE position > $after AND ${SETTLED} ORDER BY position LIMIT $limit`,
    { after, limit, horizon },
  );
  const events = rows.map(toEvent);
  if (events.length === 0) return { events, head: after };
  // The newest rows are settled unless a transaction is still open: a short backward scan.
  const head = await selectOne<{ head: string }>(sequelize, `SELECT max(position)::text AS head FROM events WHERE ${SETTLED}`, { horizon });
  return { events, head: Math.max(toNumber(head?.head ?? '0'), events[events.length - 1].position) };
}

/** An event with its place in an account's timeline: created_at to the microsecond. */
export interface TimelineEvent {
  event: StoredEvent;
  createdKey: string;
  createdUs: string;
}

/**
 * An account's events (those whose data names it), newest first by (created_at, id), strictly
 * below `before` when given: the timeline's order, which its audit entries share (ids bytewise).
 */
export async function listAccountEventsNewestFirst(
  sequelize: Sequelize,
  scope: TenantScope,
  accountNumber: number,
  before: { t: string; id: string } | null,
  limit: number,
): Promise<TimelineEvent[]> {
  const rows = await selectRows<EventRow & { created_key: string; created_us: string }>(
    sequelize,
    `SELECT ${COLUMNS},
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key,
            (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us
       FROM events
      WHERE organization_id = $org AND livemode = $livemode AND data->>'account' = $account
        ${before ? 'AND (created_at, id COLLATE "C") < (CAST($t AS timestamptz), CAST($id AS text) COLLATE "C")' : ''}
      ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $limit`,
    before ? { ...scopeBind(scope), account: String(accountNumber), t: before.t, id: before.id, limit } : { ...scopeBind(scope), account: String(accountNumber), limit },
  );
  return rows.map((row) => ({ event: toEvent(row), createdKey: row.created_key, createdUs: row.created_us }));
}
