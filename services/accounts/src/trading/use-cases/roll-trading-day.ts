import type { Transaction } from '@propdesk/kit';
import type { Account } from '../core-port';
import { startOfDayBalances } from '../data/account-days';
import { livePositionsOfAccounts, tradingDaysOf, type Position } from '../data/positions';
import type { DayStart } from '../data/account-days';
import { calendarOf } from '../domain/calendar';
import { judge, limitsOf, warningsAt } from '../domain/rules';
import { decideLocked, type VerdictHints } from './evaluate-account';
import { recordWarningsLocked } from './record-warnings';
import { equityFromPositions, type TradingContext } from './trading-context';

/**
 * A trading day begins on a test clock (SPEC 13), inside the step of its advance (`ctx.now()` is
 * the day's start; the accounts are the clock's active ones, locked): each account holding open
 * positions gets the day's start as the live engine records it (account_days: the daily
 * reference's balance and equity, and the highest end-of-day balance a trailing_eod floor
 * follows) and is judged against the new limits at the clock's prices, as a quote at that moment
 * would judge it: breached or passed under its lock (evaluate-account.ts), or warned once for the
 * new day. An account without open positions has nothing the new day can change: its start is
 * recorded when it next trades, from its deals, as the live engine does.
 */
export async function rollTradingDay(ctx: TradingContext, tx: Transaction, accounts: readonly Account[]): Promise<void> {
  const now = ctx.now();
  const live = await livePositionsOfAccounts(
    ctx.sequelize,
    accounts.map((a) => a.number),
    tx,
  );
  const byAccount = new Map<number, Position[]>();
  for (const p of live) {
    const list = byAccount.get(p.accountNumber);
    if (list) list.push(p);
    else byAccount.set(p.accountNumber, [p]);
  }
  const holders = accounts.filter((a) => byAccount.get(a.number)?.some((p) => p.status === 'open'));
  if (holders.length === 0) return;
  const numbers = holders.map((a) => a.number);
  const starts = new Map<number, DayStart>();
  const byDay = new Map<string, { day: string; start: Date; numbers: number[] }>();
  for (const account of holders) {
    const calendar = calendarOf(account.terms, ctx.rolloverHourUtc);
    const day = calendar.dayOf(now);
    const group = byDay.get(`${calendar.key} ${day}`) ?? { day, start: calendar.startOf(now), numbers: [] };
    group.numbers.push(account.number);
    byDay.set(`${calendar.key} ${day}`, group);
  }
  for (const group of byDay.values()) for (const [n, start] of await startOfDayBalances(ctx.sequelize, group.numbers, group.day, group.start, tx)) starts.set(n, start);
  const tradingDays = await tradingDaysOf(ctx.sequelize, numbers, tx);
  for (const account of holders) {
    const positions = byAccount.get(account.number) ?? [];
    const equity = equityFromPositions(ctx, account.balance, positions);
    const start = starts.get(account.number) ?? { balance: account.balance, equity: account.balance, highestEodBalance: account.balance };
    const hints: VerdictHints = {
      peakEquity: Math.max(account.peakEquity, equity),
      startOfDayBalance: start.balance,
      startOfDayEquity: start.equity,
      highestEodBalance: start.highestEodBalance,
    };
    const limits = limitsOf(account.terms, { initialBalance: account.initialBalance, ...hints });
    // In memory first, as the engine's marks are: only an account past a threshold takes the locked verdict's reads.
    if (judge(account.terms, limits, equity, tradingDays.get(account.number) ?? 0).kind !== 'none') {
      await decideLocked(ctx, tx, account, positions, hints);
      continue;
    }
    const warnings = warningsAt(account.terms, limits, equity, account.initialBalance);
    if (warnings.length > 0) await recordWarningsLocked(ctx, tx, account, warnings, equity, calendarOf(account.terms, ctx.rolloverHourUtc).dayOf(now));
  }
}
