import { roundMoney } from './instruments';
import type { TradingTerms } from './terms';

/** What the evaluation needs to know about an account at one instant. */
export interface AccountSnapshot {
  initialBalance: number;
  balance: number;
  equity: number;
  peakEquity: number;
  startOfDayBalance: number;
  tradingDays: number;
}

export type BreachRule = 'max_daily_loss' | 'max_total_loss';

export interface Breach {
  rule: BreachRule | 'manual';
  /** The equity level that was crossed (for manual: null). */
  limit: number | null;
  reason: string;
}

/** Equity below this breaches the daily-loss rule: start-of-day balance minus pct of initial balance. */
export function dailyLossLimit(terms: TradingTerms, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance'>): number {
  return roundMoney(s.startOfDayBalance - (terms.maxDailyLossPct / 100) * s.initialBalance);
}

/** Static: initial * (1 - pct); trailing: peak equity - pct * initial. */
export function totalLossLimit(terms: TradingTerms, s: Pick<AccountSnapshot, 'initialBalance' | 'peakEquity'>): number {
  const allowance = (terms.maxTotalLossPct / 100) * s.initialBalance;
  const base = terms.totalLossMode === 'trailing' ? Math.max(s.peakEquity, s.initialBalance) : s.initialBalance;
  return roundMoney(base - allowance);
}

export function profitTarget(terms: TradingTerms, initialBalance: number): number {
  return roundMoney(initialBalance * (1 + terms.profitTargetPct / 100));
}

/**
 * A limit is crossed when equity is strictly below it: equity exactly at the limit is still
 * inside the allowance (the FTMO reading). Total loss is checked first, as the graver finding.
 */
export function findBreach(terms: TradingTerms, s: AccountSnapshot): Breach | undefined {
  const total = totalLossLimit(terms, s);
  if (s.equity < total) {
    return { rule: 'max_total_loss', limit: total, reason: `max_total_loss (${terms.maxTotalLossPct}% ${terms.totalLossMode}): equity ${s.equity.toFixed(2)} fell below ${total.toFixed(2)}` };
  }
  const daily = dailyLossLimit(terms, s);
  if (s.equity < daily) {
    return { rule: 'max_daily_loss', limit: daily, reason: `max_daily_loss (${terms.maxDailyLossPct}%): equity ${s.equity.toFixed(2)} fell below ${daily.toFixed(2)}` };
  }
  return undefined;
}

/** Passed: equity at or above the profit target with at least the minimum trading days. */
export function hasPassed(terms: TradingTerms, s: AccountSnapshot): boolean {
  return s.equity >= profitTarget(terms, s.initialBalance) && s.tradingDays >= terms.minTradingDays;
}

/** Headroom before each limit, snake_case for the analytics Struct. */
export function headroom(terms: TradingTerms, s: AccountSnapshot): Record<string, number> {
  return {
    daily_loss_remaining: roundMoney(Math.max(0, s.equity - dailyLossLimit(terms, s))),
    total_loss_remaining: roundMoney(Math.max(0, s.equity - totalLossLimit(terms, s))),
    profit_target_remaining: roundMoney(Math.max(0, profitTarget(terms, s.initialBalance) - s.equity)),
    trading_days: s.tradingDays,
    min_trading_days: terms.minTradingDays,
  };
}

const HOUR_MS = 3_600_000;

/** The trading day (YYYY-MM-DD) an instant belongs to, with the day rolling over at `rolloverHourUtc`. */
export function tradingDayOf(time: Date, rolloverHourUtc: number): string {
  return new Date(time.getTime() - rolloverHourUtc * HOUR_MS).toISOString().slice(0, 10);
}

/** The instant the trading day containing `time` started. */
export function tradingDayStart(time: Date, rolloverHourUtc: number): Date {
  return new Date(Date.parse(`${tradingDayOf(time, rolloverHourUtc)}T00:00:00Z`) + rolloverHourUtc * HOUR_MS);
}

/** The first weekend start (Saturday 00:00 UTC) at or after the opening: holding past it is holding over the weekend. */
export function nextWeekendStart(openedAt: Date): number {
  const d = new Date(Date.UTC(openedAt.getUTCFullYear(), openedAt.getUTCMonth(), openedAt.getUTCDate()));
  const daysToSaturday = (6 - d.getUTCDay() + 7) % 7 || (openedAt.getTime() > d.getTime() ? 7 : 0);
  return d.getTime() + daysToSaturday * 24 * HOUR_MS;
}

/** True when a weekend start lies between opening and now: the position was held over it. */
export function heldOverWeekend(openedAt: Date, now: Date): boolean {
  return now.getTime() >= nextWeekendStart(openedAt);
}
