import { execute, type Sequelize, type Transaction } from '@propdesk/kit';

/**
 * A reset (SPEC 10), inside the caller's transaction (row locked): balance, equity and peak back
 * to the initial balance, active again, the next attempt starting now.
 */
export async function writeAccountReset(db: Sequelize, tx: Transaction, number: number, now: Date): Promise<void> {
  await execute(
    db,
    `UPDATE accounts SET balance = initial_balance, equity = initial_balance, peak_equity = initial_balance, status = 'active',
            attempt = attempt + 1, attempt_started_at = $now, updated_at = now()
      WHERE number = $number`,
    { number, now },
    tx,
  );
}

/**
 * A payout (SPEC 10): balance, equity and the peak a trailing floor follows drop by the amount;
 * trading days for the next payout count from now.
 */
export async function writePayout(db: Sequelize, tx: Transaction, number: number, amount: number, now: Date): Promise<void> {
  await execute(
    db,
    `UPDATE accounts SET balance = balance - $amount, equity = equity - $amount, peak_equity = peak_equity - $amount, payout_at = $now,
            updated_at = now()
      WHERE number = $number`,
    { number, amount, now },
    tx,
  );
}

/**
 * A reinstatement (SPEC 14), inside the caller's transaction (row locked): a breached account
 * active again in the same attempt, its money as the breach left it.
 */
export async function writeReinstated(db: Sequelize, tx: Transaction, number: number): Promise<void> {
  await execute(db, `UPDATE accounts SET status = 'active', updated_at = now() WHERE number = $number AND status = 'breached'`, { number }, tx);
}
