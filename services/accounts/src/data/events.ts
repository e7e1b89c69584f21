import { QueryTypes, toNumber, type Sequelize } from '@propdesk/kit';

export interface StoredEvent {
  position: number;
  id: string;
  organizationId: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

interface EventRow {
  position: string;
  id: string;
  organization_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

const toEvent = (row: EventRow): StoredEvent => ({
  position: toNumber(row.position),
  id: row.id,
  organizationId: row.organization_id,
  type: row.type,
  data: row.data,
  createdAt: row.created_at,
});

/**
 * Positions come from a sequence taken at insert time, so a lower position may commit after a
 * higher one. Only rows whose transaction is older than every transaction still running are
 * handed out: a reader that resumes after position P can then never miss a row below P.
 */
const SETTLED = 'txid < pg_snapshot_xmin(pg_current_snapshot())';

export async function listEvents(
  sequelize: Sequelize,
  org: string,
  type: string | null,
  after: number,
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await sequelize.query<EventRow>(
    `SELECT position, id, organization_id, type, data, created_at FROM events
      WHERE organization_id = :org ${type ? 'AND type = :type' : ''} AND position > :after AND ${SETTLED}
      ORDER BY position LIMIT :limit`,
    { replacements: { org, type, after, limit }, type: QueryTypes.SELECT },
  );
  return rows.map(toEvent);
}

/** Every organization's settled events after a position, for the StreamEvents consumer. */
export async function readSettledEvents(sequelize: Sequelize, after: number, limit: number): Promise<StoredEvent[]> {
  const rows = await sequelize.query<EventRow>(
    `SELECT position, id, organization_id, type, data, created_at FROM events
      WHERE position > :after AND ${SETTLED} ORDER BY position LIMIT :limit`,
    { replacements: { after, limit }, type: QueryTypes.SELECT },
  );
  return rows.map(toEvent);
}
