import { scopeBind, selectOne, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

/** An entry of an organization's news calendar (SPEC 15), in one mode. */
export interface NewsEvent {
  id: string;
  /** Keyset position of the list (after time). */
  seq: number;
  title: string;
  time: Date;
  currencies: string[];
  createdAt: Date;
}

interface NewsEventRow {
  id: string;
  seq: string;
  title: string;
  time: Date;
  currencies: string[];
  created_at: Date;
}

const COLUMNS = 'id, seq, title, time, currencies, created_at';

function toNewsEvent(row: NewsEventRow): NewsEvent {
  return { id: row.id, seq: toNumber(row.seq), title: row.title, time: row.time, currencies: row.currencies, createdAt: row.created_at };
}

export async function insertNewsEvent(
  sequelize: Sequelize,
  tx: Transaction,
  scope: TenantScope,
  event: { id: string; title: string; time: Date; currencies: string[] },
): Promise<NewsEvent> {
  const row = await selectOne<NewsEventRow>(
    sequelize,
    `INSERT INTO news_events (id, organization_id, livemode, title, time, currencies) VALUES ($id, $org, $livemode, $title, $time, $currencies::text[])
     RETURNING ${COLUMNS}`,
    { ...scopeBind(scope), id: event.id, title: event.title, time: event.time, currencies: event.currencies },
    tx,
  );
  return toNewsEvent(row!);
}

/** Deletes one of the scope's events; false when there is none (another organization's or mode's included). */
export async function deleteNewsEvent(sequelize: Sequelize, tx: Transaction, scope: TenantScope, id: string): Promise<NewsEvent | null> {
  const row = await selectOne<NewsEventRow>(
    sequelize,
    `DELETE FROM news_events WHERE id = $id AND organization_id = $org AND livemode = $livemode RETURNING ${COLUMNS}`,
    { ...scopeBind(scope), id },
    tx,
  );
  return row ? toNewsEvent(row) : null;
}

/** One keyset page of the scope's events in time order, within [from, to] when given, after (time, seq). */
export async function listNewsEvents(
  sequelize: Sequelize,
  scope: TenantScope,
  filter: { from: Date | null; to: Date | null; after: { time: Date; seq: number } | null; limit: number },
): Promise<NewsEvent[]> {
  const rows = await selectRows<NewsEventRow>(
    sequelize,
    `SELECT ${COLUMNS} FROM news_events
      WHERE organization_id = $org AND livemode = $livemode
        AND time >= coalesce(CAST($from AS timestamptz), '-infinity') AND time <= coalesce(CAST($to AS timestamptz), 'infinity')
        AND (CAST($afterTime AS timestamptz) IS NULL OR (time, seq) > (CAST($afterTime AS timestamptz), CAST($afterSeq AS bigint)))
      ORDER BY time, seq LIMIT $limit`,
    {
      ...scopeBind(scope),
      from: filter.from,
      to: filter.to,
      afterTime: filter.after?.time ?? null,
      afterSeq: filter.after?.seq ?? null,
      limit: filter.limit,
    },
  );
  return rows.map(toNewsEvent);
}

/** The scope's events in [from, to] naming one of `currencies` (what a news blackout weighs). */
export async function newsEventsNear(
  sequelize: Sequelize,
  scope: TenantScope,
  currencies: string[],
  from: Date,
  to: Date,
  tx?: Transaction,
): Promise<Array<{ title: string; time: Date }>> {
  if (currencies.length === 0) return [];
  const rows = await selectRows<{ title: string; time: Date }>(
    sequelize,
    `SELECT title, time FROM news_events
      WHERE organization_id = $org AND livemode = $livemode AND time >= $from AND time <= $to AND currencies && $currencies::text[]
      ORDER BY time, seq`,
    { ...scopeBind(scope), currencies, from, to },
    tx,
  );
  return rows;
}

