import { execute, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';
import type { AccountStatus } from '../domain/account';

/**
 * The account's money columns and the status a trading verdict sets (and, on a pass with a next
 * phase, the link to its account), written inside the
 * caller's transaction (which holds the row lock, see findAccount). The peak only ever grows.
 */
export async function writeAccountMoney(sequelize: Sequelize, tx: Transaction, number: number, values: AccountMoney): Promise<void> {
  const { sql, bind } = accountMoneyStatement(number, values);
  await execute(sequelize, sql, bind, tx);
}

export type AccountMoney = { balance: number; equity: number; peakEquity: number; status?: AccountStatus; nextAccount?: number };

/** writeAccountMoney's statement, to run with others (executeTogether). */
export function accountMoneyStatement(number: number, values: AccountMoney): Statement {
  return {
    sql: `UPDATE accounts SET balance = $balance, equity = $equity, peak_equity = GREATEST(peak_equity, $peakEquity),
        status = COALESCE($status, status), next_account = COALESCE(CAST($nextAccount AS bigint), next_account), updated_at = now()
      WHERE number = $number`,
    bind: { number, balance: values.balance, equity: values.equity, peakEquity: values.peakEquity, status: values.status ?? null, nextAccount: values.nextAccount ?? null },
  };
}

/**
 * Marked equity of many accounts in one statement, bounded by the trading engine's flush
 * interval. Only active accounts: a breach or pass has written its final figures under the lock.
 */
export async function writeMarkedEquity(sequelize: Sequelize, marks: Array<{ number: number; equity: number; peakEquity: number }>): Promise<void> {
  if (marks.length === 0) return;
  // Arrays travel as three bind parameters: one statement, whatever the number of accounts.
  const sorted = [...marks].sort((a, b) => a.number - b.number);
  await execute(
    sequelize,
    `UPDATE accounts a SET equity = v.e, peak_equity = GREATEST(a.peak_equity, v.p)
       FROM unnest($numbers::bigint[], $equities::numeric[], $peaks::numeric[]) AS v(n, e, p)
      WHERE a.number = v.n AND a.status = 'active' AND (a.equity <> v.e OR a.peak_equity < v.p)`,
    { numbers: sorted.map((m) => m.number), equities: sorted.map((m) => m.equity), peaks: sorted.map((m) => m.peakEquity) },
  );
}
