import { execute, selectRows, toNumber, type Sequelize } from '@propdesk/kit';
import { universeCondition } from './positions';

/** Takes or renews this replica's lease for `ttlMs`, and answers the replicas whose lease is live now (sorted). */
export async function renewLease(sequelize: Sequelize, replicaId: string, ttlMs: number): Promise<string[]> {
  const rows = await selectRows<{ replica_id: string }>(
    sequelize,
    `WITH renewed AS (
       INSERT INTO engine_leases (replica_id, expires_at) VALUES ($id, now() + make_interval(secs => $ttl))
       ON CONFLICT (replica_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
       RETURNING replica_id
     )
     SELECT replica_id FROM engine_leases WHERE expires_at > now() AND replica_id <> $id
     UNION SELECT replica_id FROM renewed`,
    { id: replicaId, ttl: ttlMs / 1000 },
  );
  return rows.map((r) => r.replica_id).sort();
}

/** A replica stopping gives its lease back, so its accounts move at once rather than when it expires. */
export async function releaseLease(sequelize: Sequelize, replicaId: string): Promise<void> {
  await execute(sequelize, 'DELETE FROM engine_leases WHERE replica_id = $id', { id: replicaId });
}

/** Leases expired long ago (replicas that died) are cleaned up by whoever renews. */
export async function pruneLeases(sequelize: Sequelize, olderThanSeconds: number): Promise<void> {
  await execute(sequelize, 'DELETE FROM engine_leases WHERE expires_at < now() - make_interval(secs => $age)', { age: olderThanSeconds });
}

/** Accounts of a universe (the live market's by default, or a test clock's) holding live (open or pending) positions, optionally of one symbol. */
export async function liveAccountNumbers(sequelize: Sequelize, symbol?: string, clockId: string | null = null): Promise<number[]> {
  const rows = await selectRows<{ account_number: string }>(
    sequelize,
    `SELECT DISTINCT account_number FROM positions
      WHERE status IN ('open', 'pending') AND (CAST($symbol AS text) IS NULL OR symbol = $symbol) AND ${universeCondition(clockId)}`,
    clockId === null ? { symbol: symbol ?? null } : { symbol: symbol ?? null, clockId },
  );
  return rows.map((r) => toNumber(r.account_number));
}
