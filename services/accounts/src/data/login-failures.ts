import { execute, selectOne, type Sequelize } from '@propdesk/kit';

export type FailureKind = 'account' | 'ip';

/** Failed logins of one key within the last windowSeconds (a sliding window). */
export async function countRecentFailures(sequelize: Sequelize, kind: FailureKind, key: string, windowSeconds: number): Promise<number> {
  const row = await selectOne<{ n: string }>(
    sequelize,
    `SELECT count(*) AS n FROM executor_login_failures
      WHERE kind = $kind AND key = $key AND created_at > now() - make_interval(secs => $window)`,
    { kind, key, window: windowSeconds },
  );
  return Number(row?.n ?? 0);
}

export async function recordFailures(sequelize: Sequelize, entries: Array<{ kind: FailureKind; key: string }>): Promise<void> {
  if (entries.length === 0) return;
  await execute(sequelize, `INSERT INTO executor_login_failures (kind, key) SELECT * FROM unnest($kinds::text[], $keys::text[])`, {
    kinds: entries.map((e) => e.kind),
    keys: entries.map((e) => e.key),
  });
}

/** Rows older than the window no longer count; keeps the table small. */
export async function pruneFailures(sequelize: Sequelize, windowSeconds: number): Promise<number> {
  const row = await selectOne<{ n: string }>(
    sequelize,
    `WITH pruned AS (DELETE FROM executor_login_failures WHERE created_at < now() - make_interval(secs => $window) RETURNING 1)
     SELECT count(*) AS n FROM pruned`,
    { window: windowSeconds },
  );
  return Number(row?.n ?? 0);
}
