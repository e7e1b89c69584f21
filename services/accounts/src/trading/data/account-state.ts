import { QueryTypes, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { AccountStatus } from '../../domain/account';
import { parseTerms, type TradingTerms } from '../domain/terms';

/** The columns of an account the engine reads and writes (the row belongs to the accounts core). */
export interface TradingAccount {
  number: number;
  organizationId: string;
  status: AccountStatus;
  traderId: string | null;
  program: string;
  currency: string;
  terms: TradingTerms;
  initialBalance: number;
  balance: number;
  equity: number;
  peakEquity: number;
  createdAt: Date;
}

interface Row {
  number: string;
  organization_id: string;
  status: AccountStatus;
  trader_id: string | null;
  program: string;
  currency: string;
  terms: unknown;
  initial_balance: string;
  balance: string;
  equity: string;
  peak_equity: string;
  created_at: Date;
}

const COLUMNS = 'number, organization_id, status, trader_id, program, currency, terms, initial_balance, balance, equity, peak_equity, created_at';

function toTradingAccount(row: Row): TradingAccount {
  return {
    number: toNumber(row.number),
    organizationId: row.organization_id,
    status: row.status,
    traderId: row.trader_id,
    program: row.program,
    currency: row.currency,
    terms: parseTerms(row.terms),
    initialBalance: toNumber(row.initial_balance),
    balance: toNumber(row.balance),
    equity: toNumber(row.equity),
    peakEquity: toNumber(row.peak_equity),
    createdAt: row.created_at,
  };
}

/**
 * Reads an account, optionally locking its row. Every transaction that changes an account's
 * money or status takes this lock first, so concurrent orders and replicas serialize per account.
 * With `org` set, another organization's account reads as missing.
 */
export async function readAccount(
  sequelize: Sequelize,
  number: number,
  options: { org?: string; tx?: Transaction; lock?: boolean } = {},
): Promise<TradingAccount | null> {
  const rows = await sequelize.query<Row>(
    `SELECT ${COLUMNS} FROM accounts WHERE number = :number${options.org ? ' AND organization_id = :org' : ''}${options.lock ? ' FOR UPDATE' : ''}`,
    { replacements: { number, org: options.org ?? null }, type: QueryTypes.SELECT, transaction: options.tx },
  );
  return rows[0] ? toTradingAccount(rows[0]) : null;
}

export async function readAccounts(sequelize: Sequelize, numbers: number[]): Promise<TradingAccount[]> {
  if (numbers.length === 0) return [];
  const rows = await sequelize.query<Row>(`SELECT ${COLUMNS} FROM accounts WHERE number = ANY($1::bigint[])`, {
    bind: [numbers],
    type: QueryTypes.SELECT,
  });
  return rows.map(toTradingAccount);
}

export async function writeAccountMoney(
  sequelize: Sequelize,
  tx: Transaction,
  number: number,
  values: { balance: number; equity: number; peakEquity: number; status?: AccountStatus },
): Promise<void> {
  await sequelize.query(
    `UPDATE accounts SET balance = :balance, equity = :equity, peak_equity = GREATEST(peak_equity, :peakEquity),
        status = COALESCE(:status, status), updated_at = now()
      WHERE number = :number`,
    { replacements: { number, ...values, status: values.status ?? null }, transaction: tx },
  );
}

/**
 * Marked equity of many accounts in one statement, bounded by the engine's flush interval.
 * Only active accounts: a breach or pass has written its final figures under the lock.
 */
export async function writeMarkedEquity(sequelize: Sequelize, marks: Array<{ number: number; equity: number; peakEquity: number }>): Promise<void> {
  if (marks.length === 0) return;
  // Arrays travel as three bind parameters: one statement, whatever the number of accounts.
  const sorted = [...marks].sort((a, b) => a.number - b.number);
  await sequelize.query(
    `UPDATE accounts a SET equity = v.e, peak_equity = GREATEST(a.peak_equity, v.p)
       FROM unnest($1::bigint[], $2::numeric[], $3::numeric[]) AS v(n, e, p)
      WHERE a.number = v.n AND a.status = 'active' AND (a.equity <> v.e OR a.peak_equity < v.p)`,
    { bind: [sorted.map((m) => m.number), sorted.map((m) => m.equity), sorted.map((m) => m.peakEquity)] },
  );
}

export interface EquitySample {
  accountNumber: number;
  minute: Date;
  open: number;
  high: number;
  low: number;
  close: number;
  balance: number;
}

/** Upserts per-minute equity buckets (one row per account per minute, whatever the tick rate). */
export async function upsertEquityMinutes(sequelize: Sequelize, samples: EquitySample[], tx?: Transaction): Promise<void> {
  if (samples.length === 0) return;
  const sorted = [...samples].sort((a, b) => a.accountNumber - b.accountNumber || a.minute.getTime() - b.minute.getTime());
  await sequelize.query(
    `INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[])
     ON CONFLICT (account_number, minute) DO UPDATE SET high = GREATEST(equity_minutes.high, EXCLUDED.high),
       low = LEAST(equity_minutes.low, EXCLUDED.low), close = EXCLUDED.close, balance = EXCLUDED.balance`,
    {
      bind: [
        sorted.map((s) => s.accountNumber),
        sorted.map((s) => s.minute.toISOString()),
        sorted.map((s) => s.open),
        sorted.map((s) => s.high),
        sorted.map((s) => s.low),
        sorted.map((s) => s.close),
        sorted.map((s) => s.balance),
      ],
      transaction: tx,
    },
  );
}

/**
 * The start-of-day balance of each account for a trading day: stored once per account per day
 * (first writer wins, so replicas agree), computed as the current balance minus what deals
 * closed since the day started added.
 */
export async function startOfDayBalances(sequelize: Sequelize, numbers: number[], day: string, dayStart: Date): Promise<Map<number, number>> {
  if (numbers.length === 0) return new Map();
  const rows = await sequelize.query<{ account_number: string; start_of_day_balance: string }>(
    `WITH computed AS (
       SELECT a.number,
              a.balance - COALESCE((SELECT sum(d.profit) FROM deals d WHERE d.account_number = a.number AND d.closed_at >= $3::timestamptz), 0) AS sod
         FROM accounts a WHERE a.number = ANY($1::bigint[])
     ), inserted AS (
       INSERT INTO account_days (account_number, day, start_of_day_balance)
       SELECT number, $2::date, sod FROM computed
       ON CONFLICT (account_number, day) DO NOTHING
       RETURNING account_number, start_of_day_balance
     )
     SELECT account_number, start_of_day_balance FROM inserted
     UNION ALL
     SELECT account_number, start_of_day_balance FROM account_days WHERE day = $2::date AND account_number = ANY($1::bigint[])`,
    { bind: [numbers, day, dayStart.toISOString()], type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), toNumber(r.start_of_day_balance)]));
}
