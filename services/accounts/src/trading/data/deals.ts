import { selectRows, toNumber, type Sequelize } from '@propdesk/kit';
import type { Side } from '../domain/pnl';

export interface Deal {
  id: string;
  seq: number;
  accountNumber: number;
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
  /** The account's attempt the deal belongs to (SPEC 10). */
  attempt: number;
}

export interface DealRow {
  id: string;
  seq: string;
  account_number: string;
  position_id: string;
  symbol: string;
  side: Side;
  volume: string;
  open_price: string;
  close_price: string;
  profit: string;
  opened_at: Date;
  closed_at: Date;
  close_reason: string;
  balance_after: string;
  attempt: number;
}

export const DEAL_COLUMNS = 'id, seq, account_number, position_id, symbol, side, volume, open_price, close_price, profit, opened_at, closed_at, close_reason, balance_after, attempt';

export function toDeal(row: DealRow): Deal {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    accountNumber: toNumber(row.account_number),
    positionId: row.position_id,
    symbol: row.symbol,
    side: row.side,
    volume: toNumber(row.volume),
    openPrice: toNumber(row.open_price),
    closePrice: toNumber(row.close_price),
    profit: toNumber(row.profit),
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    closeReason: row.close_reason,
    balanceAfter: toNumber(row.balance_after),
    attempt: row.attempt ?? 1,
  };
}

export type NewDeal = Omit<Deal, 'id' | 'seq' | 'attempt'> & { organizationId: string };

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
