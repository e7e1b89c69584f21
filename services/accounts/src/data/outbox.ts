import { randomBytes } from 'node:crypto';
import type { Sequelize, Transaction } from '@propdesk/kit';
import type { EventType } from '../domain/events';

export const EVENTS_CHANNEL = 'propdesk_events';

export interface NewEvent {
  organizationId: string;
  type: EventType;
  data: Record<string, unknown>;
}

export interface AppendedEvent {
  id: string;
  position: number;
  createdAt: Date;
}

export function newEventId(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/**
 * Writes an event into the outbox inside the caller's transaction, so it commits (and is
 * announced to stream readers through NOTIFY) if and only if the change that caused it does.
 */
export async function appendEvent(sequelize: Sequelize, tx: Transaction, event: NewEvent): Promise<AppendedEvent> {
  const id = newEventId();
  const [rows] = (await sequelize.query(
    `INSERT INTO events (id, organization_id, type, data) VALUES (:id, :org, :type, :data::jsonb)
     RETURNING position, created_at`,
    {
      replacements: { id, org: event.organizationId, type: event.type, data: JSON.stringify(event.data) },
      transaction: tx,
    },
  )) as [Array<{ position: string; created_at: Date }>, unknown];
  await sequelize.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, { transaction: tx });
  const row = rows[0];
  return { id, position: Number(row.position), createdAt: row.created_at };
}
