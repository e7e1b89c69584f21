import { bigintText, execute, selectRows, type Sequelize } from '@propdesk/kit';
import type { PlanStatus } from '../domain/organization';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Keyset position in the organization's list. */
  listSeq: string;
}

interface ApiKeyRow {
  id: string;
  organization_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  list_seq: string;
}

const COLUMNS = 'id, organization_id, name, prefix, scopes, created_at, last_used_at, revoked_at, list_seq';

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes ?? [],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    listSeq: bigintText(row.list_seq),
  };
}

export interface VerifiedKeyRow {
  id: string;
  organizationId: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  planStatus: PlanStatus;
}

export function createApiKeysRepository(sequelize: Sequelize) {
  return {
    async insert(input: { organizationId: string; name: string; prefix: string; tokenSha256: string; scopes: string[] }): Promise<ApiKeyRecord> {
      const [row] = await selectRows<ApiKeyRow>(
        sequelize,
        `INSERT INTO api_keys (organization_id, name, prefix, token_sha256, scopes)
         VALUES ($organizationId, $name, $prefix, $tokenSha256, $scopes) RETURNING ${COLUMNS}`,
        input,
      );
      return toRecord(row);
    },

    /** First 8 hex characters of every active key's hash (see WatchInvalidationsResponse.key_fingerprints). */
    async activeFingerprints(): Promise<string[]> {
      const rows = await selectRows<{ fingerprint: string }>(sequelize, 'SELECT left(token_sha256, 8) AS fingerprint FROM api_keys WHERE revoked_at IS NULL', {});
      return rows.map((r) => r.fingerprint);
    },

    /** One lookup on the unique hash index (the organization join is by primary key). */
    async findByHash(tokenSha256: string): Promise<VerifiedKeyRow | undefined> {
      const [row] = await selectRows<{
        id: string;
        organization_id: string;
        scopes: string[];
        revoked_at: Date | null;
        last_used_at: Date | null;
        plan_status: PlanStatus;
      }>(
        sequelize,
        `SELECT k.id, k.organization_id, k.scopes, k.revoked_at, k.last_used_at, o.plan_status
           FROM api_keys k JOIN organizations o ON o.id = k.organization_id
          WHERE k.token_sha256 = $tokenSha256`,
        { tokenSha256 },
      );
      return row
        ? {
            id: row.id,
            organizationId: row.organization_id,
            scopes: row.scopes ?? [],
            revokedAt: row.revoked_at,
            lastUsedAt: row.last_used_at,
            planStatus: row.plan_status,
          }
        : undefined;
    },

    async touch(id: string): Promise<void> {
      await execute(
        sequelize,
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        { id },
      );
    },

    async listPage(organizationId: string, afterSeq: string, limit: number): Promise<ApiKeyRecord[]> {
      const rows = await selectRows<ApiKeyRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM api_keys
          WHERE organization_id = $organizationId AND list_seq > CAST($afterSeq AS bigint)
          ORDER BY list_seq LIMIT $limit`,
        { organizationId, afterSeq, limit },
      );
      return rows.map(toRecord);
    },

    /** Sets revoked_at once; a second revoke finds the row unchanged and keeps the first time. */
    async revoke(organizationId: string, id: string): Promise<ApiKeyRecord | undefined> {
      const [updated] = await selectRows<ApiKeyRow>(
        sequelize,
        `UPDATE api_keys SET revoked_at = now()
          WHERE id = $id AND organization_id = $organizationId AND revoked_at IS NULL RETURNING ${COLUMNS}`,
        { id, organizationId },
      );
      if (updated) return toRecord(updated);
      const [existing] = await selectRows<ApiKeyRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM api_keys WHERE id = $id AND organization_id = $organizationId`,
        { id, organizationId },
      );
      return existing ? toRecord(existing) : undefined;
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
