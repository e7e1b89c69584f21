import { selectRows, toNumber, type Sequelize, type Statement } from '@propdesk/kit';
import type { Side } from '../domain/pnl';

/** SPEC 14: a closed position (trade), or a balance adjustment (balance). */
export type DealType = 'trade' | 'balance';

/** A deal as stored: a balance adjustment has no position, symbol, side, volume, prices or opening time. */
export interface Deal {
  id: string;
  seq: number;
  accountNumber: number;
  type: DealType;
  positionId: string | null;
  symbol: string | null;
  side: Side | null;
  volume: number | null;
  openPrice: number | null;
  closePrice: number | null;
  profit: number;
  openedAt: Date | null;
  closedAt: Date;
  closeReason: string;
  balanceAfter: number;
  /** The account's attempt the deal belongs to (SPEC 10). */
  attempt: number;
  /** A balance adjustment's reason (null for a trade). */
  reason: string | null;
}

export interface DealRow {
  id: string;
  seq: string;
  account_number: string;
  type: DealType;
  position_id: string | null;
  symbol: string | null;
  side: Side | null;
  volume: string | null;
  open_price: string | null;
  close_price: string | null;
  profit: string;
  opened_at: Date | null;
  closed_at: Date;
  close_reason: string;
  balance_after: string;
  attempt: number;
  reason: string | null;
}

export const DEAL_COLUMNS =
  'id, seq, account_number, type, position_id, symbol, side, volume, open_price, close_price, profit, opened_at, closed_at, close_reason, balance_after, attempt, reason';

const numberOrNull = (value: string | null): number | null => (value === null ? null : toNumber(value));

export function toDeal(row: DealRow): Deal {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    accountNumber: toNumber(row.account_number),
    type: row.type ?? 'trade',
    positionId: row.position_id,
    symbol: row.symbol,
    side: row.side,
    volume: numberOrNull(row.volume),
    openPrice: numberOrNull(row.open_price),
    closePrice: numberOrNull(row.close_price),
    profit: toNumber(row.profit),
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    closeReason: row.close_reason,
    balanceAfter: toNumber(row.balance_after),
    attempt: row.attempt ?? 1,
    reason: row.reason ?? null,
  };
}

/** A position closing into its deal (closing.ts writes a batch of them). */
export interface NewDeal {
  accountNumber: number;
  organizationId: string;
  positionId: string;
  symbol: string;
  side: Side;
  volume: number;
  openPrice: number;
  closePrice: number;
  profit: number;
  openedAt: Date;
  closedAt: Date;
  closeReason: string;
  balanceAfter: number;
}

/**
 * A balance adjustment (SPEC 14) as a deal of type balance, inside the caller's transaction (the
 * account row locked): its profit is the amount, and the day's closing balance (the report's daily
 * history) follows it. It counts toward no trading statistic (deal_stats, streaks, consistency).
 */
export function balanceDealStatements(d: { accountNumber: number; organizationId: string; amount: number; reason: string; balanceAfter: number; createdAt: Date }): Statement[] {
  return [
    {
      name: 'adjusted',
      sql: `INSERT INTO deals (account_number, organization_id, type, profit, closed_at, close_reason, balance_after, reason)
            VALUES ($accountNumber, $organizationId, 'balance', $amount, $createdAt, 'adjustment', $balanceAfter, $reason)
         RETURNING ${DEAL_COLUMNS}`,
      bind: { accountNumber: d.accountNumber, organizationId: d.organizationId, amount: d.amount, createdAt: d.createdAt, balanceAfter: d.balanceAfter, reason: d.reason },
    },
    {
      sql: `INSERT INTO daily_balances (account_number, day, deals, close_balance, last_seq)
            SELECT account_number, (closed_at AT TIME ZONE 'UTC')::date, 0, balance_after, seq FROM adjusted
            ON CONFLICT (account_number, day) DO UPDATE SET
              close_balance = CASE WHEN EXCLUDED.last_seq > daily_balances.last_seq THEN EXCLUDED.close_balance ELSE daily_balances.close_balance END,
              last_seq = GREATEST(daily_balances.last_seq, EXCLUDED.last_seq)`,
      bind: {},
    },
  ];
}

/** One keyset page of an account's deals, oldest first. */
export async function listDeals(sequelize: Sequelize, accountNumber: number, afterSeq: number, limit: number): Promise<Deal[]> {
  const rows = await selectRows<DealRow>(
    sequelize,
    `SELECT ${DEAL_COLUMNS} FROM deals WHERE account_number = $accountNumber AND seq > $afterSeq ORDER BY seq LIMIT $limit`,
    { accountNumber, afterSeq, limit },
  );
  return rows.map(toDeal);
}

/** The most recent deals, newest first (the report's capped list). */
export async function latestDeals(sequelize: Sequelize, accountNumber: number, limit: number): Promise<Deal[]> {
  const rows = await selectRows<DealRow>(
    sequelize,
    `SELECT ${DEAL_COLUMNS} FROM deals WHERE account_number = $accountNumber ORDER BY seq DESC LIMIT $limit`,
    { accountNumber, limit },
  );
  return rows.map(toDeal);
}
