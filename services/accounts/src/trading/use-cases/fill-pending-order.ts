import { appendEvent, lockAccount, scopeOfAccount } from '../core-port';
import { fillPending, livePositionsOfAccount, type Position } from '../data/positions';
import { calendarOf } from '../domain/calendar';
import { positionOpenedData } from './position-events';
import { equityFromPositions, recordEquityPoint, type TradingContext } from './trading-context';

/**
 * Fills a resting limit or stop order at its price once the market reached it, and announces
 * position.opened. Null when the order was already filled or cancelled (by a close, a breach,
 * or another replica seeing the same price).
 */
export async function fillPendingOrder(ctx: TradingContext, accountNumber: number, positionId: string, price: number): Promise<Position | null> {
  const now = ctx.now();
  return ctx.sequelize.transaction(async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, accountNumber);
    if (!account || account.status !== 'active') return null;
    const position = await fillPending(ctx.sequelize, tx, positionId, { openPrice: price, openedAt: now, tradingDay: calendarOf(account.terms, ctx.rolloverHourUtc).dayOf(now) });
    if (!position) return null;
    await appendEvent(ctx.sequelize, tx, { ...scopeOfAccount(account), type: 'position.opened', data: positionOpenedData(accountNumber, position) });
    const equity = equityFromPositions(ctx, account.balance, await livePositionsOfAccount(ctx.sequelize, accountNumber, tx));
    await recordEquityPoint(ctx, tx, accountNumber, now, equity, account.balance);
    return position;
  });
}
