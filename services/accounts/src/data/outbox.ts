import { currentTraceContext, EVENT_ID_SQL, newEventId, selectOne, selectRows, type Sequelize, type Statement, type TenantScope, type Transaction } from '@propdesk/kit';
import type { EventType } from '../domain/events';

export const EVENTS_CHANNEL = 'propdesk_events';

/**
 * The wake-up for the outbox's listeners, joined to the insert so it costs no statement of its
 * own: PostgreSQL evaluates the one-row subquery once per statement and delivers the
 * notification when the transaction commits (never for a rolled-back one).
 */
const NOTIFY = `(SELECT pg_notify('${EVENTS_CHANNEL}', '')) AS notified`;

/** An event of one organization and mode (SPEC 13: the envelope's livemode; webhooks fan out within it). */
export interface NewEvent extends TenantScope {
  type: EventType;
  data: Record<string, unknown>;
  /** When it happened, if not now (a test clock's own event, at the clock's time). */
  createdAt?: Date;
}

/**
 * When an event happened, as SQL over its row's values: the time given, else for a test-mode
 * event about an account (`data.account`) the account's time, which is its test clock's frozen
 * time when it lives on one (SPEC 13: a clock account's events carry the clock's time; the feed
 * pages by position, so they need not be in time order), else now(). Live events never look.
 */
function eventTimeSql(values: { createdAt: string; livemode: string; data: string }): string {
  const account = `CASE WHEN jsonb_typeof(${values.data}->'account') = 'number' THEN (${values.data}->>'account')::bigint END`;
  const clockTime = `(SELECT ec.frozen_time FROM accounts ea JOIN test_clocks ec ON ec.id = ea.test_clock_id WHERE ea.number = ${account})`;
  return `COALESCE(${values.createdAt}, CASE WHEN ${values.livemode} THEN now() ELSE COALESCE(${clockTime}, now()) END)`;
}

export interface AppendedEvent {
  id: string;
  position: number;
  createdAt: Date;
}

/**
 * The trace context of the code writing the event (the request's, the quote's), kept with it so
 * that its webhook deliveries join that trace; null with tracing off.
 */
function traceBind(): { traceparent: string | null; tracestate: string | null } {
  const trace = currentTraceContext();
  return { traceparent: trace?.traceparent ?? null, tracestate: trace?.tracestate || null };
}

/**
 * Writes an event into the outbox inside the caller's transaction, so it commits (and is
 * announced to stream readers through NOTIFY) if and only if the change that caused it does.
 */
export async function appendEvent(sequelize: Sequelize, tx: Transaction, event: NewEvent): Promise<AppendedEvent> {
  const id = newEventId();
  const row = (await selectOne<{ position: string; created_at: Date }>(
    sequelize,
    `WITH appended AS (
       INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, created_at)
       VALUES ($id, $org, $livemode, $type, $data::jsonb, $traceparent, $tracestate,
               ${eventTimeSql({ createdAt: 'CAST($createdAt AS timestamptz)', livemode: 'CAST($livemode AS boolean)', data: 'CAST($data AS jsonb)' })})
       RETURNING position, created_at
     )
     SELECT position, created_at FROM appended, ${NOTIFY}`,
    {
      id,
      org: event.organizationId,
      livemode: event.livemode,
      type: event.type,
      data: JSON.stringify(event.data),
      createdAt: event.createdAt?.toISOString() ?? null,
      ...traceBind(),
    },
    tx,
  ))!;
  return { id, position: Number(row.position), createdAt: row.created_at };
}

/**
 * appendEvents' insert, to run with others (executeTogether, whose closing select must then be
 * EVENTS_NOTIFIED so the listeners wake).
 */
export function eventsStatement(events: NewEvent[]): Statement {
  return {
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, created_at)
       SELECT id, org::uuid, livemode, type, data::jsonb, $traceparent::text, $tracestate::text,
              ${eventTimeSql({ createdAt: 'at', livemode: 'livemode', data: 'data::jsonb' })}
         FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $datas::text[], $createdAts::timestamptz[])
              WITH ORDINALITY AS t(id, org, livemode, type, data, at, i)
        ORDER BY i`,
    bind: {
      ids: events.map(() => newEventId()),
      orgs: events.map((e) => e.organizationId),
      livemodes: events.map((e) => e.livemode),
      types: events.map((e) => e.type),
      datas: events.map((e) => JSON.stringify(e.data)),
      createdAts: events.map((e) => e.createdAt?.toISOString() ?? null),
      ...traceBind(),
    },
  };
}

export const EVENTS_NOTIFIED = `SELECT ${NOTIFY}`;

/** Several events in one statement (bulk provisioning), in the given order, one NOTIFY. */
export async function appendEvents(sequelize: Sequelize, tx: Transaction, events: NewEvent[]): Promise<AppendedEvent[]> {
  if (events.length === 0) return [];
  const { sql, bind } = eventsStatement(events);
  const rows = await selectRows<{ id: string; position: string; created_at: Date }>(
    sequelize,
    `WITH appended AS (${sql} RETURNING id, position, created_at) SELECT id, position, created_at FROM appended, ${NOTIFY}`,
    bind,
    tx,
  );
  return rows
    .map((row) => ({ id: row.id, position: Number(row.position), createdAt: row.created_at }))
    .sort((a, b) => a.position - b.position);
}

/** The outbox's wake-up as a column of a closing select (executeTogether / selectTogether). */
export const NOTIFY_COLUMN = NOTIFY;

/**
 * One event per row of `source` (a named statement of the same executeTogether: a set-based
 * change of many accounts), built by the database: one INSERT however many rows, in `orderBy`
 * order, each with its own id (EVENT_ID_SQL), its data (`data.sql`, a jsonb expression over the
 * row, with its own bind values) and its time as appendEvent's (an account's test clock's).
 */
export function eventsOfRowsStatement(
  scope: TenantScope,
  type: EventType,
  source: string,
  data: { sql: string; bind?: Record<string, unknown> },
  orderBy: string,
): Statement {
  return {
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, created_at)
          SELECT ${EVENT_ID_SQL}, $org::uuid, $livemode::boolean, $type, row_event.data, $traceparent::text, $tracestate::text,
                 ${eventTimeSql({ createdAt: 'CAST(NULL AS timestamptz)', livemode: '$livemode::boolean', data: 'row_event.data' })}
            FROM ${source}, LATERAL (SELECT ${data.sql} AS data) row_event ORDER BY ${orderBy}`,
    bind: { ...data.bind, org: scope.organizationId, livemode: scope.livemode, type, ...traceBind() },
  };
}
