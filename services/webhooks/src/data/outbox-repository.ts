import { execute, newEventId, selectRows, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

/** An event this service emits, recorded in the transaction that causes it, waiting to be forwarded. */
export interface OutboxEvent extends TenantScope {
  id: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

interface OutboxRow {
  id: string;
  organization_id: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * The webhooks service's own outbox. It cannot write the accounts service's (no service touches
 * another's tables), so an event it causes (webhook_endpoint.disabled) is recorded here in the
 * very transaction that causes it, and the forwarder (delivery/outbox-forwarder.ts) hands it to
 * the accounts service's outbox (AppendEvents, idempotent by id), which the feed and the fan-out
 * read. A crash between the hand-over and marking it forwarded sends it again: the accounts
 * service skips an id it already holds, so it is never lost and never doubled.
 */
export function createOutboxRepository(db: Sequelize) {
  return {
    /** Inside the caller's transaction: the event commits if and only if its cause does. */
    async record(transaction: Transaction, event: TenantScope & { type: string; data: Record<string, unknown> }): Promise<string> {
      const id = newEventId();
      await execute(
        db,
        `INSERT INTO outbox (id, organization_id, livemode, type, data) VALUES ($id, $org, $livemode, $type, $data::jsonb)`,
        { id, org: event.organizationId, livemode: event.livemode, type: event.type, data: JSON.stringify(event.data) },
        transaction,
      );
      return id;
    },

    /** The oldest events not yet forwarded. */
    async unforwarded(limit: number): Promise<OutboxEvent[]> {
      const rows = await selectRows<OutboxRow>(
        db,
        `SELECT id, organization_id, livemode, type, data, created_at FROM outbox WHERE forwarded_at IS NULL ORDER BY created_at, id LIMIT $limit`,
        { limit },
      );
      return rows.map((r) => ({ id: r.id, organizationId: r.organization_id, livemode: r.livemode, type: r.type, data: r.data, createdAt: new Date(r.created_at) }));
    },

    async markForwarded(ids: string[]): Promise<void> {
      await execute(db, `UPDATE outbox SET forwarded_at = now() WHERE id = ANY($ids::text[]) AND forwarded_at IS NULL`, { ids });
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
