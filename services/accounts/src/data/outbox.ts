import {
  auditStatement,
  currentTraceContext,
  EVENT_ID_SQL,
  eventDataSql,
  executeTogether,
  newEventId,
  selectOne,
  selectTogether,
  type AuditChange,
  type EventDataSql,
  type EventType,
  type Sequelize,
  type Statement,
  type TenantScope,
  type Transaction,
  type TypedEvent,
} from '@propdesk/kit';

export const EVENTS_CHANNEL = 'propdesk_events';

/**
 * The wake-up for the outbox's listeners, joined to the insert so it costs no statement of its
 * own: PostgreSQL evaluates the one-row subquery once per statement and delivers the
 * notification when the transaction commits (never for a rolled-back one).
 */
const NOTIFY = `(SELECT pg_notify('${EVENTS_CHANNEL}', '')) AS notified`;

/**
 * An event of one organization and mode (SPEC 13: the envelope's livemode; webhooks fan out within
 * it), its data typed by its type's schema in the kit's catalog. `createdAt`: when it happened, if
 * not now (a test clock's own event, at the clock's time).
 */
export type NewEvent = TenantScope & TypedEvent & { createdAt?: Date };

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
  /** The event's place in its account's events (SPEC 17); null for an event about no account. */
  sequence: number | null;
}

/**
 * The account an event is about (SPEC 17): its `data.account`, when that is an account's number.
 * Such an event is numbered in its account's sequence; any other (credits.low) carries none.
 */
export function accountOfEvent(event: { data: object }): number | null {
  const account = 'account' in event.data ? event.data.account : undefined;
  return typeof account === 'number' && Number.isSafeInteger(account) && account > 0 ? account : null;
}

/**
 * The trace context of the code writing the event (the request's, the quote's), kept with it so
 * that its webhook deliveries join that trace; null with tracing off.
 */
function traceBind(): { traceparent: string | null; tracestate: string | null } {
  const trace = currentTraceContext();
  return { traceparent: trace?.traceparent ?? null, tracestate: trace?.tracestate || null };
}

/*
 * Gap-proof sequences (SPEC 17). Every event about an account takes the next number of the
 * account's counter (accounts.event_sequence) in the statement that inserts it: the UPDATE that
 * moves the counter takes the account's row lock (already held by the transactions that change the
 * account, lockAccount) and keeps it until commit, so a second writer waits and then reads the
 * committed value. Numbers are therefore given in commit order, without a gap (a rolled-back
 * transaction rolls its counter back with its events) and without a repeat (the unique index on
 * (account_number, sequence) would refuse one). No extra round trip: the counter moves in a CTE of
 * the event's own INSERT.
 */

/** The name of the CTE that moved the counters of a batch's accounts (one events write per batch). */
const NUMBERED = 'event_sequences';
/** The name of the caller's UPDATE of one account's row that moved that account's counter itself. */
export const SEQUENCED_ACCOUNT = 'sequenced_account';

/** How many of `events` are about each account, in first-seen order. */
function countsByAccount(events: readonly NewEvent[], except: number | null): Map<number, { count: number; scope: TenantScope }> {
  const counts = new Map<number, { count: number; scope: TenantScope }>();
  for (const event of events) {
    const account = accountOfEvent(event);
    if (account === null || account === except) continue;
    const known = counts.get(account);
    if (known) known.count += 1;
    else counts.set(account, { count: 1, scope: { organizationId: event.organizationId, livemode: event.livemode } });
  }
  return counts;
}

/**
 * For a batch that also updates one account's row (a verdict's money and status): no two statements
 * of one batch may change the same row (kit sql.ts executeTogether), so that UPDATE moves the
 * account's counter past its events of the batch itself. Its SET term, its value and what it must
 * return; the events' statement (eventsStatements with `numberedBy`) numbers from it.
 */
export function sequenceTerm(account: number, events: readonly NewEvent[]): { set: string; returning: string; bind: { eventCount: number } } {
  const eventCount = events.filter((e) => accountOfEvent(e) === account).length;
  return { set: 'event_sequence = event_sequence + $eventCount', returning: 'number, event_sequence', bind: { eventCount } };
}

/**
 * appendEvents' writes, to run with others (executeTogether, whose closing select must then be
 * EVENTS_NOTIFIED so the listeners wake): the counters of the events' accounts moved by their
 * number of events (named NUMBERED), then the events, each numbered from its account's counter in
 * the given order. `numberedBy`: the account whose row the caller's statement SEQUENCED_ACCOUNT
 * updates, moving its counter (sequenceTerm).
 */
export function eventsStatements(events: readonly NewEvent[], options: { numberedBy?: number } = {}): Statement[] {
  const numberedBy = options.numberedBy ?? null;
  const counts = countsByAccount(events, numberedBy);
  const sources = [
    ...(counts.size > 0 ? [`SELECT number, event_sequence FROM ${NUMBERED}`] : []),
    ...(numberedBy !== null ? [`SELECT number, event_sequence FROM ${SEQUENCED_ACCOUNT}`] : []),
  ];
  const bump: Statement[] =
    counts.size === 0
      ? []
      : [
          {
            name: NUMBERED,
            sql: `UPDATE accounts a SET event_sequence = a.event_sequence + c.n
               FROM unnest($accounts::bigint[], $counts::bigint[], $orgs::uuid[], $livemodes::boolean[]) AS c(number, n, org, livemode)
              WHERE a.number = c.number AND a.organization_id = c.org AND a.livemode = c.livemode
              RETURNING a.number, a.event_sequence`,
            bind: {
              accounts: [...counts.keys()],
              counts: [...counts.values()].map((c) => c.count),
              orgs: [...counts.values()].map((c) => c.scope.organizationId),
              livemodes: [...counts.values()].map((c) => c.scope.livemode),
            },
          },
        ];
  // An account's events of the batch take the numbers up to its counter's new value, in order.
  const numbering =
    sources.length === 0
      ? 'NULL::bigint, NULL::bigint'
      : `s.number, s.event_sequence - count(*) OVER (PARTITION BY s.number) + row_number() OVER (PARTITION BY s.number ORDER BY t.i)`;
  const join = sources.length === 0 ? '' : `LEFT JOIN (${sources.join(' UNION ALL ')}) s ON s.number = t.account`;
  const insert: Statement = {
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, account_number, sequence, created_at)
       SELECT t.id, t.org::uuid, t.livemode, t.type, t.data::jsonb, $traceparent::text, $tracestate::text, ${numbering},
              ${eventTimeSql({ createdAt: 't.at', livemode: 't.livemode', data: 't.data::jsonb' })}
         FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $datas::text[], $accounts::bigint[], $createdAts::timestamptz[])
              WITH ORDINALITY AS t(id, org, livemode, type, data, account, at, i)
         ${join}
        ORDER BY t.i`,
    bind: {
      ids: events.map(() => newEventId()),
      orgs: events.map((e) => e.organizationId),
      livemodes: events.map((e) => e.livemode),
      types: events.map((e) => e.type),
      datas: events.map((e) => JSON.stringify(e.data)),
      accounts: events.map(accountOfEvent),
      createdAts: events.map((e) => e.createdAt?.toISOString() ?? null),
      ...traceBind(),
    },
  };
  return [...bump, insert];
}

export const EVENTS_NOTIFIED = `SELECT ${NOTIFY}`;

/**
 * Writes an event into the outbox inside the caller's transaction, so it commits (and is
 * announced to stream readers through NOTIFY) if and only if the change that caused it does; an
 * event about an account takes the account's next sequence number in the same statement.
 */
export async function appendEvent(sequelize: Sequelize, tx: Transaction, event: NewEvent): Promise<AppendedEvent> {
  const id = newEventId();
  const row = (await selectOne<{ position: string; created_at: Date; sequence: string | null }>(
    sequelize,
    `WITH numbered AS (
       UPDATE accounts SET event_sequence = event_sequence + 1
        WHERE number = CAST($account AS bigint) AND organization_id = $org AND livemode = $livemode
       RETURNING number, event_sequence
     ), appended AS (
       INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, account_number, sequence, created_at)
       VALUES ($id, $org, $livemode, $type, $data::jsonb, $traceparent, $tracestate,
               (SELECT number FROM numbered), (SELECT event_sequence FROM numbered),
               ${eventTimeSql({ createdAt: 'CAST($createdAt AS timestamptz)', livemode: 'CAST($livemode AS boolean)', data: 'CAST($data AS jsonb)' })})
       RETURNING position, created_at, sequence
     )
     SELECT position, created_at, sequence FROM appended, ${NOTIFY}`,
    {
      id,
      org: event.organizationId,
      livemode: event.livemode,
      type: event.type,
      data: JSON.stringify(event.data),
      account: accountOfEvent(event),
      createdAt: event.createdAt?.toISOString() ?? null,
      ...traceBind(),
    },
    tx,
  ))!;
  return { id, position: Number(row.position), createdAt: row.created_at, sequence: row.sequence === null ? null : Number(row.sequence) };
}

/** Several events in one statement (bulk provisioning), in the given order, one NOTIFY. */
export async function appendEvents(sequelize: Sequelize, tx: Transaction, events: NewEvent[]): Promise<AppendedEvent[]> {
  if (events.length === 0) return [];
  const statements = eventsStatements(events);
  const insert = statements[statements.length - 1];
  const rows = await selectTogether<{ id: string; position: string; created_at: Date; sequence: string | null }>(
    sequelize,
    [...statements.slice(0, -1), { ...insert, name: 'appended', sql: `${insert.sql} RETURNING id, position, created_at, sequence` }],
    `SELECT id, position, created_at, sequence FROM appended, ${NOTIFY}`,
    tx,
  );
  return rows
    .map((row) => ({ id: row.id, position: Number(row.position), createdAt: row.created_at, sequence: row.sequence === null ? null : Number(row.sequence) }))
    .sort((a, b) => a.position - b.position);
}

/** An event another service owns (FORWARDED_EVENT_TYPES), with the id and time it was given there. */
export type ForwardedEvent = TenantScope & TypedEvent & { id: string; createdAt: Date };

/**
 * Appends other services' events (AppendEvents), in the given order, skipping any whose id the
 * outbox already holds: forwarding them again after a failure never makes a second copy. They are
 * about no account, so they carry no sequence. Returns how many were new.
 */
export async function appendForwardedEvents(sequelize: Sequelize, events: ForwardedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const rows = await selectTogether<{ appended: string }>(
    sequelize,
    [
      {
        name: 'appended',
        sql: `INSERT INTO events (id, organization_id, livemode, type, data, created_at, traceparent, tracestate)
           SELECT t.id, t.org::uuid, t.livemode, t.type, t.data::jsonb, t.created_at, $traceparent::text, $tracestate::text
             FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $datas::text[], $createdAts::timestamptz[])
                  WITH ORDINALITY AS t(id, org, livemode, type, data, created_at, i)
            ORDER BY t.i
           ON CONFLICT (id) DO NOTHING
           RETURNING position`,
        bind: {
          ids: events.map((e) => e.id),
          orgs: events.map((e) => e.organizationId),
          livemodes: events.map((e) => e.livemode),
          types: events.map((e) => e.type),
          datas: events.map((e) => JSON.stringify(e.data)),
          createdAts: events.map((e) => e.createdAt.toISOString()),
          ...traceBind(),
        },
      },
    ],
    `SELECT count(*)::text AS appended FROM appended, ${NOTIFY}`,
  );
  return Number(rows[0]?.appended ?? 0);
}

/** The outbox's wake-up as a column of a closing select (executeTogether / selectTogether). */
export const NOTIFY_COLUMN = NOTIFY;

/**
 * What a set-based change of many accounts (the source of eventsOfRowsStatement, an UPDATE of
 * accounts) sets and returns so that the one event it writes per row takes the row's next
 * sequence number (a batch may change a row only once: the UPDATE moves the counter itself).
 */
export const ONE_EVENT_PER_ROW = { set: 'event_sequence = event_sequence + 1', returning: 'number, event_sequence' } as const;

/**
 * One event of `type` per row of `source` (a named UPDATE of accounts of any organizations and
 * modes, with ONE_EVENT_PER_ROW's SET term, returning also organization_id and livemode), each with
 * its account's own data (`datas`, by account number), numbered in its account's sequence, in
 * account order: a set-based verdict of many accounts (the time rules' breaches).
 */
export function eventsOfAccountsStatement(type: EventType, source: string, datas: ReadonlyMap<number, Record<string, unknown>>): Statement {
  return {
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, account_number, sequence, created_at)
          SELECT ${EVENT_ID_SQL}, r.organization_id, r.livemode, $type, d.data::jsonb, $traceparent::text, $tracestate::text, r.number, r.event_sequence,
                 ${eventTimeSql({ createdAt: 'CAST(NULL AS timestamptz)', livemode: 'r.livemode', data: 'd.data::jsonb' })}
            FROM ${source} r JOIN unnest($eventAccounts::bigint[], $eventDatas::text[]) AS d(number, data) ON d.number = r.number
           ORDER BY r.number`,
    bind: { type, eventAccounts: [...datas.keys()], eventDatas: [...datas.values()].map((d) => JSON.stringify(d)), ...traceBind() },
  };
}

/**
 * One event per row of `source` (a named statement of the same executeTogether: a set-based
 * change of many accounts), built by the database: one INSERT however many rows, in `orderBy`
 * order, each with its own id (EVENT_ID_SQL), its data (`data.fields`: a SQL expression over the
 * row for every field of the type's schema, with their own bind values) and its time as appendEvent's (an account's test clock's). `source` is an UPDATE of accounts with ONE_EVENT_PER_ROW's SET
 * term and RETURNING columns: each event is numbered in its account's sequence from them.
 */
export function eventsOfRowsStatement<T extends EventType>(
  scope: TenantScope,
  type: T,
  source: string,
  data: { fields: EventDataSql<T>; bind?: Record<string, unknown> },
  orderBy: string,
): Statement {
  return {
    sql: `INSERT INTO events (id, organization_id, livemode, type, data, traceparent, tracestate, account_number, sequence, created_at)
          SELECT ${EVENT_ID_SQL}, $org::uuid, $livemode::boolean, $type, row_event.data, $traceparent::text, $tracestate::text, number, event_sequence,
                 ${eventTimeSql({ createdAt: 'CAST(NULL AS timestamptz)', livemode: '$livemode::boolean', data: 'row_event.data' })}
            FROM ${source}, LATERAL (SELECT ${eventDataSql(data.fields)} AS data) row_event ORDER BY ${orderBy}`,
    bind: { ...data.bind, org: scope.organizationId, livemode: scope.livemode, type, ...traceBind() },
  };
}

/**
 * An event and the audit entries of the change that caused it (SPEC 14), in one statement inside
 * the change's transaction: the entries ride with the event's insert (and its account's sequence
 * number, eventsStatements) and cost no round trip of their own.
 */
export async function appendEventWithAudit(sequelize: Sequelize, tx: Transaction, event: NewEvent, audits: AuditChange[]): Promise<void> {
  const entries = audits.map(auditStatement).filter((s): s is Statement => s !== null);
  await executeTogether(sequelize, [...eventsStatements([event]), ...entries], tx, EVENTS_NOTIFIED);
}
