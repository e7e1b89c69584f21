import { executeTogether, type Transaction } from '@propdesk/kit';
import { EVENTS_NOTIFIED, type Account } from '../core-port';
import { cancelPending, type Position } from '../data/positions';
import { exitPrice } from '../domain/pnl';
import { closeBatch, closeBatchStatements, closePositionInTx, type CloseBatch } from './close-position';
import type { TradingContext } from './trading-context';

/**
 * Ends an account's trading inside the caller's transaction (row locked): every open position
 * closes at the current price (buy at bid, sell at ask; a symbol without a quote closes flat at
 * its open price), resting orders are cancelled. `live` is what the caller read under the row
 * lock: every open and pending position. With `batch`, the position.closed events and the running
 * figures are left there for the caller to write with its own statement; without, they are
 * written here. Returns the final balance.
 */
export async function liquidateInTx(ctx: TradingContext, tx: Transaction, account: Account, live: Position[], reason: string, batch?: CloseBatch): Promise<number> {
  const now = ctx.now();
  const closes = batch ?? closeBatch();
  let balance = account.balance;
  for (const position of live) {
    if (position.status !== 'open' || position.openPrice === null) continue;
    const quote = ctx.quote(position.symbol);
    const price = quote ? exitPrice(position.side, quote) : position.openPrice;
    const result = await closePositionInTx(ctx, tx, { ...account, balance }, position, price, reason, now, closes);
    if (result) balance = result.balance;
  }
  // `live` was read under the row lock, and orders are placed under it too: nothing to cancel when none is pending.
  if (live.some((p) => p.status === 'pending')) await cancelPending(ctx.sequelize, tx, account.number, reason, now);
  const writes = batch ? [] : closeBatchStatements(account.number, closes);
  if (writes.length > 0) await executeTogether(ctx.sequelize, writes, tx, EVENTS_NOTIFIED);
  return balance;
}
