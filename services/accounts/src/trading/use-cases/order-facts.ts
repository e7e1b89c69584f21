import type { Transaction } from '@propdesk/kit';
import { scopeOfAccount, type Account } from '../core-port';
import { newsEventsNear } from '../data/news-events';
import type { Position } from '../data/positions';
import { accountLock, tradesOfDay } from '../data/rule-deadlines';
import { calendarOf } from '../domain/calendar';
import type { OrderInput } from '../domain/orders';
import { marginFor } from '../domain/pnl';
import { lossAtStop, newsCurrencies, type OrderFacts } from '../domain/rule-pack';
import { equityFromPositions, type TradingContext } from './trading-context';

const MINUTE_MS = 60_000;

/**
 * What the pre-order rules weigh about an order on an account now (domain/rule-pack.ts), read
 * once for a placed order (under the account lock, in its transaction) and for a preview: the
 * margin, and only what the account's terms have a rule for (a count of the day's trades, the
 * lock in force, the news around now), so a program without SPEC 15's rules reads nothing more
 * than before.
 */
export async function orderFacts(
  ctx: TradingContext,
  account: Account,
  live: readonly Position[],
  order: OrderInput,
  entry: number,
  tx?: Transaction,
): Promise<OrderFacts> {
  const { terms } = account;
  const now = ctx.now();
  const equity = equityFromPositions(ctx, account.balance, [...live]);
  let used = 0;
  for (const p of live) {
    if (p.status === 'open' && p.openPrice !== null) used += marginFor(p.symbol, p.volume, p.openPrice, terms.leverage, ctx.quote);
  }
  const required = marginFor(order.symbol, order.volume, entry, terms.leverage, ctx.quote);
  const day = calendarOf(terms, ctx.rolloverHourUtc).dayOf(now);
  const locks = terms.dailyLossAction === 'lock' || terms.dailyProfitCapPct !== null;
  const window = (terms.newsBlackoutMinutes ?? 0) * MINUTE_MS;
  return {
    now,
    livePositions: live.length,
    tradesToday: terms.maxTradesPerDay === null ? 0 : await tradesOfDay(ctx.sequelize, account.number, account.attempt, day, tx),
    lock: locks ? await accountLock(ctx.sequelize, account.number, account.attempt, tx) : null,
    news:
      terms.newsBlackoutMinutes === null
        ? []
        : await newsEventsNear(ctx.sequelize, scopeOfAccount(account), newsCurrencies(order.symbol), new Date(now.getTime() - window), new Date(now.getTime() + window), tx),
    lossAtStop: lossAtStop(order, entry, ctx.quote),
    margin: { required, equity, used },
  };
}
