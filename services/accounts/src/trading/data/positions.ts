import { execute, selectOne, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { OrderType } from '../domain/orders';
import type { Side } from '../domain/pnl';

export type PositionStatus = 'pending' | 'open' | 'closed' | 'cancelled';

export interface Position {
  id: string;
  seq: number;
  accountNumber: number;
  organizationId: string;
  status: PositionStatus;
  symbol: string;
  side: Side;
  volume: number;
  type: OrderType;
  price: number | null;
  openPrice: number | null;
  stopLoss: number | null;
  takeProfit: number | null;
  openedAt: Date | null;
  closePrice: number | null;
  profit: number | null;
  closedAt: Date | null;
  closeReason: string;
  createdAt: Date;
  /** The account's attempt the position belongs to (SPEC 10). */
  attempt: number;
}

export interface PositionRow {
  id: string;
  seq: string;
  account_number: string;
  organization_id: string;
  status: PositionStatus;
  symbol: string;
  side: Side;
  volume: string;
  type: OrderType;
  price: string | null;
  open_price: string | null;
  stop_loss: string | null;
  take_profit: string | null;
  opened_at: Date | null;
  close_price: string | null;
  profit: string | null;
  closed_at: Date | null;
  close_reason: string;
  created_at: Date;
  attempt: number;
}

export const POSITION_COLUMNS = `id, seq, account_number, organization_id, status, symbol, side, volume, type, price, open_price, stop_loss,
  take_profit, opened_at, close_price, profit, closed_at, close_reason, created_at, attempt`;

const nullableNumber = (v: string | null): number | null => (v === null ? null : toNumber(v));

export function toPosition(row: PositionRow): Position {
  return {
    id: row.id,
    seq: toNumber(row.seq),
    accountNumber: toNumber(row.account_number),
    organizationId: row.organization_id,
    status: row.status,
    symbol: row.symbol,
    side: row.side,
    volume: toNumber(row.volume),
    type: row.type,
    price: nullableNumber(row.price),
    openPrice: nullableNumber(row.open_price),
    stopLoss: nullableNumber(row.stop_loss),
    takeProfit: nullableNumber(row.take_profit),
    openedAt: row.opened_at,
    closePrice: nullableNumber(row.close_price),
    profit: nullableNumber(row.profit),
    closedAt: row.closed_at,
    closeReason: row.close_reason,
    createdAt: row.created_at,
    attempt: row.attempt ?? 1,
  };
}

export interface NewPosition {
  accountNumber: number;
  organizationId: string;
  status: 'open' | 'pending';
  symbol: string;
  side: Side;
  volume: number;
  type: OrderType;
  price: number | null;
  openPrice: number | null;
  stopLoss: number | null;
  takeProfit: number | null;
  openedAt: Date | null;
  tradingDay: string | null;
  /** When the order was placed (the engine's clock). */
  createdAt: Date;
}

export async function insertPosition(sequelize: Sequelize, tx: Transaction, p: NewPosition): Promise<Position> {
  const rows = await selectRows<PositionRow>(
    sequelize,
    `INSERT INTO positions (account_number, organization_id, status, symbol, side, volume, type, price, open_price, stop_loss,
       take_profit, opened_at, trading_day, created_at, updated_at)
     VALUES ($accountNumber, $organizationId, $status, $symbol, $side, $volume, $type, $price, $openPrice, $stopLoss,
       $takeProfit, $openedAt, $tradingDay, $now, now())
     RETURNING ${POSITION_COLUMNS}`,
    {
      accountNumber: p.accountNumber,
      organizationId: p.organizationId,
      status: p.status,
      symbol: p.symbol,
      side: p.side,
      volume: p.volume,
      type: p.type,
      price: p.price,
      openPrice: p.openPrice,
      stopLoss: p.stopLoss,
      takeProfit: p.takeProfit,
      openedAt: p.openedAt,
      tradingDay: p.tradingDay,
      now: p.createdAt,
    },
    tx,
  );
  return toPosition(rows[0]);
}

/** The open and pending positions of one account (the caller holds the account lock). */
export async function livePositionsOfAccount(sequelize: Sequelize, accountNumber: number, tx?: Transaction): Promise<Position[]> {
  const rows = await selectRows<PositionRow>(
    sequelize,
    `SELECT ${POSITION_COLUMNS} FROM positions WHERE account_number = $accountNumber AND status IN ('open', 'pending') ORDER BY seq`,
    { accountNumber },
    tx,
  );
  return rows.map(toPosition);
}

/** The open and pending positions of many accounts in one query (the engine's reloads). */
export async function livePositionsOfAccounts(sequelize: Sequelize, numbers: number[]): Promise<Position[]> {
  if (numbers.length === 0) return [];
  const rows = await selectRows<PositionRow>(
    sequelize,
    `SELECT ${POSITION_COLUMNS} FROM positions WHERE account_number = ANY($numbers::bigint[]) AND status IN ('open', 'pending') ORDER BY seq`,
    { numbers },
  );
  return rows.map(toPosition);
}

/** Every open and pending position: the engine's index at start. */
export async function allLivePositions(sequelize: Sequelize): Promise<Position[]> {
  const rows = await selectRows<PositionRow>(sequelize, `SELECT ${POSITION_COLUMNS} FROM positions WHERE status IN ('open', 'pending')`);
  return rows.map(toPosition);
}

export async function findPosition(sequelize: Sequelize, accountNumber: number, id: string, tx?: Transaction): Promise<Position | null> {
  const row = await selectOne<PositionRow>(
    sequelize,
    `SELECT ${POSITION_COLUMNS} FROM positions WHERE account_number = $accountNumber AND id = $id${tx ? ' FOR UPDATE' : ''}`,
    { accountNumber, id },
    tx,
  );
  return row ? toPosition(row) : null;
}

/** Fills a resting order; false when another replica already filled or cancelled it. */
export async function fillPending(
  sequelize: Sequelize,
  tx: Transaction,
  id: string,
  fill: { openPrice: number; openedAt: Date; tradingDay: string },
): Promise<Position | null> {
  const row = await selectOne<PositionRow>(
    sequelize,
    `UPDATE positions SET status = 'open', open_price = $openPrice, opened_at = $openedAt, trading_day = $tradingDay, updated_at = now()
      WHERE id = $id AND status = 'pending' RETURNING ${POSITION_COLUMNS}`,
    { id, openPrice: fill.openPrice, openedAt: fill.openedAt, tradingDay: fill.tradingDay },
    tx,
  );
  return row ? toPosition(row) : null;
}

export async function cancelPending(sequelize: Sequelize, tx: Transaction, accountNumber: number, reason: string, id?: string): Promise<Position[]> {
  const rows = await selectRows<PositionRow>(
    sequelize,
    `UPDATE positions SET status = 'cancelled', close_reason = $reason, closed_at = now(), updated_at = now()
      WHERE account_number = $accountNumber AND status = 'pending'${id ? ' AND id = $id' : ''} RETURNING ${POSITION_COLUMNS}`,
    id ? { accountNumber, reason, id } : { accountNumber, reason },
    tx,
  );
  return rows.map(toPosition);
}

export async function countTradingDays(sequelize: Sequelize, accountNumber: number, tx?: Transaction): Promise<number> {
  const row = await selectOne<{ n: string }>(
    sequelize,
    `SELECT count(DISTINCT p.trading_day) AS n FROM positions p JOIN accounts a ON a.number = p.account_number AND a.attempt = p.attempt
      WHERE p.account_number = $accountNumber AND p.trading_day IS NOT NULL`,
    { accountNumber },
    tx,
  );
  return toNumber(row?.n);
}

/**
 * A change of the account's money that is not a change of its positions (a balance adjustment, a
 * payout), inside the caller's transaction: its live positions are marked changed, so that the
 * replica evaluating the account (another one, maybe) re-reads it on its next tick
 * (recentlyChangedAccounts) instead of marking them against the balance it knew. An account
 * without live positions is in no replica's index: nothing to tell.
 */
export async function announceMoneyChange(sequelize: Sequelize, tx: Transaction, accountNumber: number): Promise<void> {
  await execute(
    sequelize,
    `UPDATE positions SET updated_at = now() WHERE account_number = $accountNumber AND status IN ('open', 'pending')`,
    { accountNumber },
    tx,
  );
}

/** Accounts whose positions changed recently (any replica), with the latest change time. */
export async function recentlyChangedAccounts(sequelize: Sequelize, lookbackSeconds: number): Promise<Array<{ accountNumber: number; changedAt: Date }>> {
  const rows = await selectRows<{ account_number: string; changed_at: Date }>(
    sequelize,
    `SELECT account_number, max(updated_at) AS changed_at FROM positions
      WHERE updated_at > now() - make_interval(secs => $lookback) GROUP BY account_number`,
    { lookback: lookbackSeconds },
  );
  return rows.map((r) => ({ accountNumber: toNumber(r.account_number), changedAt: r.changed_at }));
}

/** One keyset page of an account's positions, oldest first. */
export async function listPositions(
  sequelize: Sequelize,
  accountNumber: number,
  status: PositionStatus | undefined,
  afterSeq: number,
  limit: number,
): Promise<Position[]> {
  const rows = await selectRows<PositionRow>(
    sequelize,
    `SELECT ${POSITION_COLUMNS} FROM positions WHERE account_number = $accountNumber${status ? ' AND status = $status' : ''} AND seq > $afterSeq
      ORDER BY seq LIMIT $limit`,
    status ? { accountNumber, status, afterSeq, limit } : { accountNumber, afterSeq, limit },
  );
  return rows.map(toPosition);
}

/** Minimum-trading-days counts of many accounts in one query (the current attempt's). */
export async function tradingDaysOf(sequelize: Sequelize, numbers: number[]): Promise<Map<number, number>> {
  if (numbers.length === 0) return new Map();
  const rows = await selectRows<{ account_number: string; n: string }>(
    sequelize,
    `SELECT p.account_number, count(DISTINCT p.trading_day) AS n FROM positions p JOIN accounts a ON a.number = p.account_number AND a.attempt = p.attempt
      WHERE p.account_number = ANY($numbers::bigint[]) AND p.trading_day IS NOT NULL GROUP BY p.account_number`,
    { numbers },
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), toNumber(r.n)]));
}
