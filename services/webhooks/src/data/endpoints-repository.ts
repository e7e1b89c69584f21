import { randomUUID } from 'node:crypto';
import { execute, isUuid, scopeBind, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

export type EndpointStatus = 'enabled' | 'disabled';

export interface EndpointRecord {
  id: string;
  seq: number;
  organizationId: string;
  /** The mode of the key that registered it (SPEC 13): it receives that mode's events only. */
  livemode: boolean;
  url: string;
  /** The owner's note on what it is for; null when none. */
  description: string | null;
  events: string[];
  status: EndpointStatus;
  createdAt: Date;
}

/** What an update changes; a field left out keeps its value (null description: none). */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
}

interface EndpointRow {
  id: string;
  seq: string;
  organization_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  events: string[];
  status: EndpointStatus;
  created_at: Date;
}

const COLUMNS = 'id, seq, organization_id, livemode, url, description, events, status, created_at';

function toRecord(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    organizationId: row.organization_id,
    livemode: row.livemode,
    url: row.url,
    description: row.description,
    events: row.events ?? [],
    status: row.status,
    createdAt: new Date(row.created_at),
  };
}

export function createEndpointsRepository(db: Sequelize) {
  /** The caller's transaction (a write's effect transaction), or one of its own. */
  const inTransaction = <T>(outer: Transaction | undefined, fn: (transaction: Transaction) => Promise<T>): Promise<T> => (outer ? fn(outer) : db.transaction(fn));
  return {
    async insert(
      input: { scope: TenantScope; url: string; events: string[]; description: string | null; secretSealed: string },
      transaction?: Transaction,
    ): Promise<EndpointRecord> {
      const rows = await selectRows<EndpointRow>(
        db,
        `INSERT INTO endpoints (id, organization_id, livemode, url, events, description, secret_sealed)
         VALUES ($id, $org, $livemode, $url, $events, CAST($description AS text), $secret) RETURNING ${COLUMNS}`,
        { id: randomUUID(), ...scopeBind(input.scope), url: input.url, events: input.events, description: input.description, secret: input.secretSealed },
        transaction,
      );
      return toRecord(rows[0]);
    },

    /** Changes the given fields of a (not deleted) endpoint of this organization and mode; undefined when there is none. */
    async update(scope: TenantScope, id: string, changes: EndpointChanges, transaction?: Transaction): Promise<EndpointRecord | undefined> {
      if (!isUuid(id)) return undefined;
      const rows = await selectRows<EndpointRow>(
        db,
        `UPDATE endpoints SET
           url = CASE WHEN $setUrl THEN CAST($url AS text) ELSE url END,
           events = CASE WHEN $setEvents THEN CAST($events AS text[]) ELSE events END,
           description = CASE WHEN $setDescription THEN CAST($description AS text) ELSE description END
         WHERE id = $id AND organization_id = $org AND livemode = $livemode AND deleted_at IS NULL
         RETURNING ${COLUMNS}`,
        {
          id,
          ...scopeBind(scope),
          setUrl: changes.url !== undefined,
          url: changes.url ?? null,
          setEvents: changes.events !== undefined,
          events: changes.events ?? null,
          setDescription: changes.description !== undefined,
          description: changes.description ?? null,
        },
        transaction,
      );
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    /** A (not deleted) endpoint of this organization and mode; anything else reads as absent. */
    async find(scope: TenantScope, id: string, transaction?: Transaction): Promise<EndpointRecord | undefined> {
      if (!isUuid(id)) return undefined;
      const rows = await selectRows<EndpointRow>(
        db,
        `SELECT ${COLUMNS} FROM endpoints WHERE id = $id AND organization_id = $org AND livemode = $livemode AND deleted_at IS NULL
         ${transaction ? 'FOR UPDATE' : ''}`,
        { id, ...scopeBind(scope) },
        transaction,
      );
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    async list(scope: TenantScope, afterSeq: number, limit: number): Promise<EndpointRecord[]> {
      const rows = await selectRows<EndpointRow>(
        db,
        `SELECT ${COLUMNS} FROM endpoints WHERE organization_id = $org AND livemode = $livemode AND deleted_at IS NULL AND seq > $after
         ORDER BY seq LIMIT $limit`,
        { ...scopeBind(scope), after: afterSeq, limit },
      );
      return rows.map(toRecord);
    },

    /** Soft delete: the record stays for audit, its pending deliveries stop. */
    async softDelete(scope: TenantScope, id: string, outer?: Transaction): Promise<boolean> {
      if (!isUuid(id)) return false;
      return inTransaction(outer, async (transaction) => {
        const rows = await selectRows<{ id: string }>(
          db,
          `UPDATE endpoints SET deleted_at = now() WHERE id = $id AND organization_id = $org AND livemode = $livemode AND deleted_at IS NULL RETURNING id`,
          { id, ...scopeBind(scope) },
          transaction,
        );
        if (rows.length === 0) return false;
        await execute(
          db,
          `UPDATE deliveries SET status = 'skipped', error = 'endpoint deleted', next_attempt_at = NULL, updated_at = now()
           WHERE endpoint_id = $id AND status = 'pending'`,
          { id },
          transaction,
        );
        return true;
      });
    },

    /**
     * The new secret replaces the current one, which keeps signing until `previousExpiresInSeconds`
     * from now (0: not at all). A previous secret still in its overlap is dropped: at most two sign.
     */
    async rotateSecret(input: {
      scope: TenantScope;
      id: string;
      secretSealed: string;
      previousExpiresInSeconds: number;
    }, transaction?: Transaction): Promise<{ endpoint: EndpointRecord; previousExpiresAt: Date | null } | undefined> {
      if (!isUuid(input.id)) return undefined;
      const rows = await selectRows<EndpointRow & { previous_secret_expires_at: Date | null }>(
        db,
        `UPDATE endpoints SET
           previous_secret_sealed = CASE WHEN CAST($seconds AS integer) > 0 THEN secret_sealed END,
           previous_secret_expires_at = CASE WHEN CAST($seconds AS integer) > 0 THEN now() + CAST($seconds AS integer) * interval '1 second' END,
           secret_sealed = $secret
         WHERE id = $id AND organization_id = $org AND livemode = $livemode AND deleted_at IS NULL
         RETURNING ${COLUMNS}, previous_secret_expires_at`,
        { id: input.id, ...scopeBind(input.scope), secret: input.secretSealed, seconds: input.previousExpiresInSeconds },
        transaction,
      );
      const row = rows[0];
      if (!row) return undefined;
      return { endpoint: toRecord(row), previousExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null };
    },

    async setEnabled(id: string, transaction: Transaction): Promise<EndpointRecord> {
      const rows = await selectRows<EndpointRow>(
        db,
        `UPDATE endpoints SET status = 'enabled', disabled_reason = NULL, failing_since = NULL
         WHERE id = $id RETURNING ${COLUMNS}`,
        { id },
        transaction,
      );
      return toRecord(rows[0]);
    },
  };
}

export type EndpointsRepository = ReturnType<typeof createEndpointsRepository>;
