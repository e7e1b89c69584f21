import { bigintText, execute, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';
import type { PlanStatus } from '../domain/organization';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** The key's mode (SPEC 13): false for a pfx_test_ key. */
  livemode: boolean;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  /** The key's own limits per minute; null: the gateway's default. */
  readPerMin: number | null;
  writePerMin: number | null;
  /** Keyset position in the organization's list. */
  listSeq: string;
}

interface ApiKeyRow {
  id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  read_per_min: number | null;
  write_per_min: number | null;
  list_seq: string;
}

const COLUMNS = 'id, organization_id, livemode, name, prefix, scopes, created_at, last_used_at, revoked_at, expires_at, read_per_min, write_per_min, list_seq';

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    livemode: row.livemode,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes ?? [],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    readPerMin: row.read_per_min,
    writePerMin: row.write_per_min,
    listSeq: bigintText(row.list_seq),
  };
}

/** A key as a roll finds it, locked: whether it still authenticates, in the database's clock. */
export interface LockedKey {
  record: ApiKeyRecord;
  active: boolean;
}

/** What a new key is made of; absent limits and lifetime mean the defaults and no expiry. */
export interface NewKey {
  organizationId: string;
  livemode: boolean;
  name: string;
  prefix: string;
  tokenSha256: string;
  scopes: string[];
  expiresInSeconds?: number;
  readPerMin?: number | null;
  writePerMin?: number | null;
}

/** In SQL, whether a key authenticates: not revoked, not past expires_at (the database's clock decides). */
const active = (table = '') => `(${table}revoked_at IS NULL AND (${table}expires_at IS NULL OR ${table}expires_at > now()))`;

export interface VerifiedKeyRow {
  id: string;
  organizationId: string;
  livemode: boolean;
  scopes: string[];
  /** Revoked or past expires_at: the key does not authenticate. */
  inactive: boolean;
  lastUsedAt: Date | null;
  planStatus: PlanStatus;
  /** Milliseconds left before expires_at, measured by the database when it read the row; null: no expiry. */
  expiresInMs: number | null;
  readPerMin: number | null;
  writePerMin: number | null;
}

export function createApiKeysRepository(sequelize: Sequelize) {
  return {
    async insert(input: NewKey, transaction?: Transaction): Promise<ApiKeyRecord> {
      const [row] = await selectRows<ApiKeyRow>(
        sequelize,
        `INSERT INTO api_keys (organization_id, livemode, name, prefix, token_sha256, scopes, expires_at, read_per_min, write_per_min)
         VALUES ($organizationId, $livemode, $name, $prefix, $tokenSha256, $scopes,
                 now() + CAST($expiresInSeconds AS integer) * interval '1 second', $readPerMin, $writePerMin)
         RETURNING ${COLUMNS}`,
        {
          organizationId: input.organizationId,
          livemode: input.livemode,
          name: input.name,
          prefix: input.prefix,
          tokenSha256: input.tokenSha256,
          scopes: input.scopes,
          expiresInSeconds: input.expiresInSeconds ?? null,
          readPerMin: input.readPerMin ?? null,
          writePerMin: input.writePerMin ?? null,
        },
        transaction,
      );
      return toRecord(row);
    },

    /** First 8 hex characters of every active key's hash (see WatchInvalidationsResponse.key_fingerprints). */
    async activeFingerprints(): Promise<string[]> {
      const rows = await selectRows<{ fingerprint: string }>(sequelize, `SELECT left(token_sha256, 8) AS fingerprint FROM api_keys WHERE ${active()}`, {});
      return rows.map((r) => r.fingerprint);
    },

    /** One lookup on the unique hash index (the organization join is by primary key), whatever the key's state. */
    async findByHash(tokenSha256: string): Promise<VerifiedKeyRow | undefined> {
      const [row] = await selectRows<{
        id: string;
        organization_id: string;
        livemode: boolean;
        scopes: string[];
        inactive: boolean;
        last_used_at: Date | null;
        plan_status: PlanStatus;
        expires_in_ms: string | null;
        read_per_min: number | null;
        write_per_min: number | null;
      }>(
        sequelize,
        `SELECT k.id, k.organization_id, k.livemode, k.scopes, NOT ${active('k.')} AS inactive, k.last_used_at, o.plan_status,
                floor(extract(epoch FROM k.expires_at - now()) * 1000)::bigint AS expires_in_ms, k.read_per_min, k.write_per_min
           FROM api_keys k JOIN organizations o ON o.id = k.organization_id
          WHERE k.token_sha256 = $tokenSha256`,
        { tokenSha256 },
      );
      return row
        ? {
            id: row.id,
            organizationId: row.organization_id,
            livemode: row.livemode,
            scopes: row.scopes ?? [],
            inactive: row.inactive,
            lastUsedAt: row.last_used_at,
            planStatus: row.plan_status,
            expiresInMs: row.expires_in_ms === null ? null : toNumber(row.expires_in_ms),
            readPerMin: row.read_per_min,
            writePerMin: row.write_per_min,
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

    /** One mode's keys of the organization, in creation order. */
    async listPage(scope: TenantScope, afterSeq: string, limit: number): Promise<ApiKeyRecord[]> {
      const rows = await selectRows<ApiKeyRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM api_keys
          WHERE organization_id = $organizationId AND livemode = $livemode AND list_seq > CAST($afterSeq AS bigint)
          ORDER BY list_seq LIMIT $limit`,
        { organizationId: scope.organizationId, livemode: scope.livemode, afterSeq, limit },
      );
      return rows.map(toRecord);
    },

    /** The key locked for a change that depends on its state (a roll). */
    async findForUpdate(organizationId: string, id: string, transaction: Transaction): Promise<LockedKey | undefined> {
      const [row] = await selectRows<ApiKeyRow & { active: boolean }>(
        sequelize,
        `SELECT ${COLUMNS}, ${active()} AS active FROM api_keys WHERE id = $id AND organization_id = $organizationId FOR UPDATE`,
        { id, organizationId },
        transaction,
      );
      return row ? { record: toRecord(row), active: row.active } : undefined;
    },

    /** expires_at becomes now + seconds, never later than it already was: an overlap does not lengthen a key's life. */
    async expireWithin(id: string, seconds: number, transaction: Transaction): Promise<ApiKeyRecord> {
      const [row] = await selectRows<ApiKeyRow>(
        sequelize,
        `UPDATE api_keys SET expires_at = least(expires_at, now() + CAST($seconds AS integer) * interval '1 second')
          WHERE id = $id RETURNING ${COLUMNS}`,
        { id, seconds },
        transaction,
      );
      return toRecord(row);
    },

    /** A null limit goes back to the default. An empty organizationId matches any organization (operator tools). */
    async setLimits(
      input: { organizationId: string; id: string; readPerMin: number | null; writePerMin: number | null },
      transaction?: Transaction,
    ): Promise<{ key: ApiKeyRecord; before: { readPerMin: number | null; writePerMin: number | null } } | undefined> {
      const [row] = await selectRows<ApiKeyRow & { before_read: number | null; before_write: number | null }>(
        sequelize,
        `WITH old AS (
           SELECT id, read_per_min, write_per_min FROM api_keys
            WHERE id = $id AND ($organizationId = '' OR organization_id = CAST(nullif($organizationId, '') AS uuid)) FOR UPDATE)
         UPDATE api_keys k SET read_per_min = $readPerMin, write_per_min = $writePerMin FROM old WHERE k.id = old.id
         RETURNING ${COLUMNS.split(', ').map((c) => `k.${c}`).join(', ')}, old.read_per_min AS before_read, old.write_per_min AS before_write`,
        input,
        transaction,
      );
      return row ? { key: toRecord(row), before: { readPerMin: row.before_read, writePerMin: row.before_write } } : undefined;
    },

    /** Sets revoked_at once; a second revoke finds the row unchanged and keeps the first time (revokedNow false). */
    async revoke(organizationId: string, id: string, transaction?: Transaction): Promise<{ key: ApiKeyRecord; revokedNow: boolean } | undefined> {
      const [updated] = await selectRows<ApiKeyRow>(
        sequelize,
        `UPDATE api_keys SET revoked_at = now()
          WHERE id = $id AND organization_id = $organizationId AND revoked_at IS NULL RETURNING ${COLUMNS}`,
        { id, organizationId },
        transaction,
      );
      if (updated) return { key: toRecord(updated), revokedNow: true };
      const [existing] = await selectRows<ApiKeyRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM api_keys WHERE id = $id AND organization_id = $organizationId`,
        { id, organizationId },
        transaction,
      );
      return existing ? { key: toRecord(existing), revokedNow: false } : undefined;
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
