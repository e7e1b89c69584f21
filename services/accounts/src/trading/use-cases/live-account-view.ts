import type { TenantScope } from '@propdesk/kit';
import type { Account } from '../core-port';
import { startOfDayBalances, storedDayStart, type DayStart } from '../data/account-days';
import { countTradingDays, livePositionsOfAccount, type Position } from '../data/positions';
import { calendarOf } from '../domain/calendar';
import type { AccountSnapshot } from '../domain/rules';
import { requireAccount } from './account-access';
import { equityFromPositions, type TradingContext } from './trading-context';

export interface LiveAccountView {
  account: Account;
  live: Position[];
  snapshot: AccountSnapshot;
}

/** An account as it stands now: marked at the cached quotes, with today's start-of-day balance. */
export async function liveAccountView(ctx: TradingContext, scope: TenantScope, accountNumber: number): Promise<LiveAccountView> {
  const account = await requireAccount(ctx, scope, accountNumber);
  const live = await livePositionsOfAccount(ctx.sequelize, accountNumber);
  const now = ctx.now();
  const equity = account.status === 'active' ? equityFromPositions(ctx, account.balance, live) : account.equity;
  const calendar = calendarOf(account.terms, ctx.rolloverHourUtc);
  const day = calendar.dayOf(now);
  let start: DayStart | undefined;
  if (account.status === 'active') {
    const sods = await startOfDayBalances(ctx.sequelize, [accountNumber], day, calendar.startOf(now));
    start = sods.get(accountNumber);
  } else {
    // Read, not written: today's start as stored if the account traded today before it stopped; else its balance stands in.
    start = await storedDayStart(ctx.sequelize, accountNumber, day);
  }
  return {
    account,
    live,
    snapshot: {
      initialBalance: account.initialBalance,
      balance: account.balance,
      equity,
      peakEquity: Math.max(account.peakEquity, equity),
      startOfDayBalance: start?.balance ?? account.balance,
      startOfDayEquity: start?.equity,
      highestEodBalance: start?.highestEodBalance,
      tradingDays: await countTradingDays(ctx.sequelize, accountNumber),
    },
  };
}
