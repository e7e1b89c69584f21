import { selectOne, type Sequelize, type Transaction } from '@propdesk/kit';

/** Records that a warning was sent for (account, attempt, rule, period); false when it already was. */
export async function insertWarning(
  db: Sequelize,
  tx: Transaction,
  w: { accountNumber: number; attempt: number; rule: string; period: string },
): Promise<boolean> {
  const row = await selectOne<{ rule: string }>(
    db,
    `INSERT INTO account_warnings (account_number, attempt, rule, period) VALUES ($accountNumber, $attempt, $rule, $period)
     ON CONFLICT DO NOTHING RETURNING rule`,
    w,
    tx,
  );
  return row !== undefined;
}
