import { auditStatement, currentTraceContext, executeTogether, newEventId, selectOne, selectRows, type AuditChange, type Sequelize, type Statement, type TenantScope, type Transaction } from '@propdesk/kit';
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
       INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate)
       VALUES ($id, $org, $livemode, $type, $data::jsonb, $traceparent, $tracestate)
       RETURNING position, created_at
     )
     SELECT position, created_at FROM appended, ${NOTIFY}`,
    { id, org: event.organizationId, livemode: event.livemode, type: event.type, data: JSON.stringify(event.data), ...traceBind() },
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
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate)
       SELECT id, org::uuid, livemode, type, data::jsonb, $traceparent::text, $tracestate::text
         FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $datas::text[])
              WITH ORDINALITY AS t(id, org, livemode, type, data, i)
        ORDER BY i`,
    bind: {
      ids: events.map(() => newEventId()),
      orgs: events.map((e) => e.organizationId),
      livemodes: events.map((e) => e.livemode),
      types: events.map((e) => e.type),
      datas: events.map((e) => JSON.stringify(e.data)),
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

/**
 * An event and the audit entries of the change that caused it (SPEC 14), in one statement inside
 * the change's transaction: the entries ride with the event's insert and cost no round trip of
 * their own.
 */
export async function appendEventWithAudit(sequelize: Sequelize, tx: Transaction, event: NewEvent, audits: AuditChange[]): Promise<void> {
  const entries = audits.map(auditStatement).filter((s): s is Statement => s !== null);
  await executeTogether(sequelize, [eventsStatement([event]), ...entries], tx, EVENTS_NOTIFIED);
}
