import { affectedRows, deleteInBatches, execute, selectOne, toNumber, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';

/** Revokes every live executor session of an account inside the caller's transaction. */
export async function revokeSessionsForAccount(sequelize: Sequelize, tx: Transaction, accountNumber: number): Promise<number> {
  const { sql, bind } = revokeSessionsStatement(accountNumber);
  const row = await selectOne<{ n: string }>(sequelize, `WITH revoked AS (${sql} RETURNING 1) SELECT count(*) AS n FROM revoked`, bind, tx);
  return Number(row?.n ?? 0);
}

/** Revokes every live executor session of several accounts (a test clock's, when it is deleted). */
export async function revokeSessionsForAccounts(sequelize: Sequelize, tx: Transaction, numbers: number[]): Promise<void> {
  if (numbers.length === 0) return;
  await execute(sequelize, 'UPDATE executor_sessions SET revoked_at = now() WHERE account_number = ANY($numbers::bigint[]) AND revoked_at IS NULL', { numbers }, tx);
}

/** The revocation of several accounts' sessions, to run with others (executeTogether). */
export function revokeSessionsOfAccountsStatement(numbers: number[]): Statement {
  return { sql: 'UPDATE executor_sessions SET revoked_at = now() WHERE account_number = ANY($revokedAccounts::bigint[]) AND revoked_at IS NULL', bind: { revokedAccounts: numbers } };
}

/** The revocation, to run with others (executeTogether). */
export function revokeSessionsStatement(accountNumber: number): Statement {
  return { sql: 'UPDATE executor_sessions SET revoked_at = now() WHERE account_number = $n AND revoked_at IS NULL', bind: { n: accountNumber } };
}

export async function insertSession(
  sequelize: Sequelize,
  accountNumber: number,
  tokenSha256: string,
  ttlSeconds: number,
): Promise<{ id: string; expiresAt: Date }> {
  const row = (await selectOne<{ id: string; expires_at: Date }>(
    sequelize,
    `INSERT INTO executor_sessions (account_number, token_sha256, expires_at)
     VALUES ($n, $hash, now() + make_interval(secs => $ttl)) RETURNING id, expires_at`,
    { n: accountNumber, hash: tokenSha256, ttl: ttlSeconds },
  ))!;
  return { id: row.id, expiresAt: row.expires_at };
}

/** A session that is neither revoked nor expired, by token hash. */
export async function findLiveSession(sequelize: Sequelize, tokenSha256: string): Promise<{ id: string; accountNumber: number } | null> {
  const row = await selectOne<{ id: string; account_number: string }>(
    sequelize,
    `SELECT id, account_number FROM executor_sessions
      WHERE token_sha256 = $hash AND revoked_at IS NULL AND expires_at > now()`,
    { hash: tokenSha256 },
  );
  return row ? { id: row.id, accountNumber: toNumber(row.account_number) } : null;
}

/** Retention: sessions that ended (revoked, or expired) before `cutoff`. */
export function purgeSessionsEndedBefore(sequelize: Sequelize, cutoff: Date): Promise<number> {
  return deleteInBatches((batch) =>
    affectedRows(
      sequelize,
      `DELETE FROM executor_sessions WHERE id IN (
         SELECT id FROM executor_sessions WHERE least(coalesce(revoked_at, expires_at), expires_at) < $cutoff LIMIT $batch)`,
      { cutoff, batch },
    ),
  );
}
