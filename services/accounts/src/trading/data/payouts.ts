import { execute, selectOne, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';

export interface Payout {
  id: string;
  seq: number;
  accountNumber: number;
  amount: number;
  profitSplitPct: number;
  traderShare: number;
  firmShare: number;
  balanceAfter: number;
  createdAt: Date;
  /** The account's mode (SPEC 13). */
  livemode: boolean;
}

interface PayoutRow {
  id: string;
  seq: string;
  account_number: string;
  amount: string;
  profit_split_pct: string;
  trader_share: string;
  firm_share: string;
  balance_after: string;
  created_at: Date;
  livemode: boolean;
}

const COLUMNS = 'id, seq, account_number, amount, profit_split_pct, trader_share, firm_share, balance_after, created_at, livemode';

function toPayout(r: PayoutRow): Payout {
  return {
    id: r.id,
    seq: toNumber(r.seq),
    accountNumber: toNumber(r.account_number),
    amount: toNumber(r.amount),
    profitSplitPct: toNumber(r.profit_split_pct),
    traderShare: toNumber(r.trader_share),
    firmShare: toNumber(r.firm_share),
    balanceAfter: toNumber(r.balance_after),
    createdAt: r.created_at,
    livemode: r.livemode,
  };
}

export async function insertPayout(
  db: Sequelize,
  tx: Transaction,
  p: Omit<Payout, 'id' | 'seq'> & { organizationId: string },
): Promise<Payout> {
  const row = await selectOne<PayoutRow>(
    db,
    `INSERT INTO payouts (account_number, organization_id, livemode, amount, profit_split_pct, trader_share, firm_share, balance_after, created_at)
     VALUES ($accountNumber, $organizationId, $livemode, $amount, $profitSplitPct, $traderShare, $firmShare, $balanceAfter, $createdAt)
     RETURNING ${COLUMNS}`,
    { ...p },
    tx,
  );
  if (!row) throw new Error('payout not inserted');
  return toPayout(row);
}

/** One keyset page of an account's payouts, oldest first. */
export async function listPayouts(db: Sequelize, accountNumber: number, afterSeq: number, limit: number): Promise<Payout[]> {
  const rows = await selectRows<PayoutRow>(
    db,
    `SELECT ${COLUMNS} FROM payouts WHERE account_number = $accountNumber AND seq > $afterSeq ORDER BY seq LIMIT $limit`,
    { accountNumber, afterSeq, limit },
  );
  return rows.map(toPayout);
}

/** A payout moves the money the day's reference and trailing_eod are measured from, by the amount. */
export async function shiftAccountDays(db: Sequelize, tx: Transaction, accountNumber: number, amount: number): Promise<void> {
  await execute(
    db,
    `UPDATE account_days SET start_of_day_balance = start_of_day_balance - $amount,
            start_of_day_equity = start_of_day_equity - $amount
      WHERE account_number = $accountNumber`,
    { accountNumber, amount },
    tx,
  );
}
