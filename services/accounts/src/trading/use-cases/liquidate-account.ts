import type { Transaction } from '@propdesk/kit';
import type { Account, NewEvent } from '../core-port';
import { cancelPending, type Position } from '../data/positions';
import { exitPrice } from '../domain/pnl';
import { closePositionInTx } from './close-position';
import type { TradingContext } from './trading-context';

/**
 * Ends an account's trading inside the caller's transaction (row locked): every open position
 * closes at the current price (buy at bid, sell at ask; a symbol without a quote closes flat at
 * its open price), resting orders are cancelled. `live` is what the caller read under the row
 * lock: every open and pending position. With `events`, the position.closed events are pushed
 * there for the caller to append with its own. Returns the final balance.
 */
export async function liquidateInTx(ctx: TradingContext, tx: Transaction, account: Account, live: Position[], reason: string, events?: NewEvent[]): Promise<number> {
  const now = ctx.now();
  let balance = account.balance;
  for (const position of live) {
    if (position.status !== 'open' || position.openPrice === null) continue;
    const quote = ctx.quote(position.symbol);
    const price = quote ? exitPrice(position.side, quote) : position.openPrice;
    const result = await closePositionInTx(ctx, tx, { ...account, balance }, position, price, reason, now, events);
    if (result) balance = result.balance;
  }
  // `live` was read under the row lock, and orders are placed under it too: nothing to cancel when none is pending.
  if (live.some((p) => p.status === 'pending')) await cancelPending(ctx.sequelize, tx, account.number, reason);
  return balance;
}
