import { AppError, type Logger, type Sequelize, type Transaction } from '@propdesk/kit';
import { appendEvent } from '../../data/outbox';
import { insertDeal, type Deal } from '../data/deals';
import { recordDealStats } from '../data/deal-stats';
import { markClosed, type Position } from '../data/positions';
import { upsertEquityMinutes, type TradingAccount } from '../data/account-state';
import { roundMoney, type Quote, type QuoteLookup } from '../domain/instruments';
import { equityOf, profitAt } from '../domain/pnl';

/** What the trading use cases run with; the engine provides the quote cache and the clock. */
export interface TradingContext {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  now(): Date;
  quote: QuoteLookup;
}

export function requireQuote(ctx: TradingContext, symbol: string): Quote {
  const quote = ctx.quote(symbol);
  if (!quote) throw new AppError('unavailable', `no quote for ${symbol} yet; the market-data feed has not priced it`);
  return quote;
}

/** Equity of an account from its positions as stored (the transaction's view), at the cached quotes. */
export function equityFromPositions(ctx: TradingContext, balance: number, positions: Position[]): number {
  return equityOf(
    balance,
    positions.filter((p) => p.status === 'open' && p.openPrice !== null).map((p) => ({ symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice as number })),
    ctx.quote,
  );
}

export function positionOpenedData(accountNumber: number, p: Position): Record<string, unknown> {
  return {
    account: accountNumber,
    position_id: p.id,
    symbol: p.symbol,
    side: p.side,
    volume: p.volume,
    type: p.type,
    open_price: p.openPrice,
    stop_loss: p.stopLoss,
    take_profit: p.takeProfit,
    opened_at: p.openedAt?.toISOString() ?? null,
  };
}

/**
 * Closes one open position at `price` inside the caller's transaction (the account row is
 * locked): the position row, a deal carrying the balance after it, and position.closed.
 * Returns null when the position was no longer open (another replica got there first).
 */
export async function closePositionInTx(
  ctx: TradingContext,
  tx: Transaction,
  account: Pick<TradingAccount, 'number' | 'organizationId' | 'initialBalance'> & { balance: number },
  position: Position,
  price: number,
  reason: string,
  closedAt: Date,
): Promise<{ position: Position; deal: Deal; balance: number } | null> {
  if (position.openPrice === null || position.openedAt === null) return null;
  const profit = profitAt({ symbol: position.symbol, side: position.side, volume: position.volume, openPrice: position.openPrice }, price, ctx.quote);
  const closed = await markClosed(ctx.sequelize, tx, position.id, { closePrice: price, profit, closedAt, reason });
  if (!closed) return null;
  const balance = roundMoney(account.balance + profit);
  const deal = await insertDeal(ctx.sequelize, tx, {
    accountNumber: account.number,
    organizationId: account.organizationId,
    positionId: position.id,
    symbol: position.symbol,
    side: position.side,
    volume: position.volume,
    openPrice: position.openPrice,
    closePrice: price,
    profit,
    openedAt: position.openedAt,
    closedAt,
    closeReason: reason,
    balanceAfter: balance,
  });
  await recordDealStats(ctx.sequelize, tx, deal, account.initialBalance);
  await appendEvent(ctx.sequelize, tx, {
    organizationId: account.organizationId,
    type: 'position.closed',
    data: {
      account: account.number,
      position_id: position.id,
      symbol: position.symbol,
      side: position.side,
      volume: position.volume,
      open_price: position.openPrice,
      close_price: price,
      profit,
      reason,
    },
  });
  return { position: closed, deal, balance };
}

/** A point on the equity curve at a fill or close (merged into that minute's bucket). */
export async function recordEquityPoint(ctx: TradingContext, tx: Transaction, accountNumber: number, time: Date, equity: number, balance: number): Promise<void> {
  const minute = new Date(Math.floor(time.getTime() / 60_000) * 60_000);
  await upsertEquityMinutes(ctx.sequelize, [{ accountNumber, minute, open: equity, high: equity, low: equity, close: equity, balance }], tx);
}
