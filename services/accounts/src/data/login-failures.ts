import { QueryTypes, type Sequelize } from '@propdesk/kit';

export type FailureKind = 'account' | 'ip';

/** Failed logins of one key within the last windowSeconds (a sliding window). */
export async function countRecentFailures(sequelize: Sequelize, kind: FailureKind, key: string, windowSeconds: number): Promise<number> {
  const rows = await sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM executor_login_failures
      WHERE kind = :kind AND key = :key AND created_at > now() - make_interval(secs => :window)`,
    { replacements: { kind, key, window: windowSeconds }, type: QueryTypes.SELECT },
  );
  return Number(rows[0]?.n ?? 0);
}

export async function recordFailures(sequelize: Sequelize, entries: Array<{ kind: FailureKind; key: string }>): Promise<void> {
  if (entries.length === 0) return;
  await sequelize.query(
    `INSERT INTO executor_login_failures (kind, key) SELECT * FROM unnest(ARRAY[:kinds]::text[], ARRAY[:keys]::text[])`,
    { replacements: { kinds: entries.map((e) => e.kind), keys: entries.map((e) => e.key) } },
  );
}

/** Rows older than the window no longer count; keeps the table small. */
export async function pruneFailures(sequelize: Sequelize, windowSeconds: number): Promise<number> {
  const [, affected] = (await sequelize.query(
    'DELETE FROM executor_login_failures WHERE created_at < now() - make_interval(secs => :window)',
    { replacements: { window: windowSeconds } },
  )) as [unknown, number];
  return affected ?? 0;
}
