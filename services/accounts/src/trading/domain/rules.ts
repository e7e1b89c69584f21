import type { Terms } from '../core-port';
import { roundMoney } from './instruments';

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
export function dailyLossLimit(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance'>): number {
  return roundMoney(s.startOfDayBalance - (terms.maxDailyLossPct / 100) * s.initialBalance);
}

/** Static: initial * (1 - pct); trailing: peak equity - pct * initial. */
export function totalLossLimit(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'peakEquity'>): number {
  const allowance = (terms.maxTotalLossPct / 100) * s.initialBalance;
  const base = terms.totalLossMode === 'trailing' ? Math.max(s.peakEquity, s.initialBalance) : s.initialBalance;
  return roundMoney(base - allowance);
}

/** A funded phase has no target: it never passes (Infinity). */
export function profitTarget(terms: Terms, initialBalance: number): number {
  if (terms.profitTargetPct === null) return Number.POSITIVE_INFINITY;
  return roundMoney(initialBalance * (1 + terms.profitTargetPct / 100));
}

/** The equity levels an account is judged against; the engine keeps them precomputed per account. */
export interface Limits {
  dailyLoss: number;
  totalLoss: number;
  profitTarget: number;
}

export function limitsOf(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance' | 'peakEquity'>): Limits {
  return { dailyLoss: dailyLossLimit(terms, s), totalLoss: totalLossLimit(terms, s), profitTarget: profitTarget(terms, s.initialBalance) };
}

export type Verdict = { kind: 'breached'; breach: Breach } | { kind: 'passed' } | { kind: 'none' };

const NONE: Verdict = { kind: 'none' };
const PASSED: Verdict = { kind: 'passed' };

/**
 * The one evaluation decision, for the engine's marks and the locked re-check alike. A limit is
 * crossed when equity is strictly below it: equity exactly at the limit is still inside the
 * allowance (the FTMO reading). Total loss is checked first, as the graver finding. Passed:
 * equity at or above the profit target with at least the minimum trading days.
 */
export function judge(terms: Terms, limits: Limits, equity: number, tradingDays: number): Verdict {
  if (equity < limits.totalLoss) {
    const reason = `max_total_loss (${terms.maxTotalLossPct}% ${terms.totalLossMode}): equity ${equity.toFixed(2)} fell below ${limits.totalLoss.toFixed(2)}`;
    return { kind: 'breached', breach: { rule: 'max_total_loss', limit: limits.totalLoss, reason } };
  }
  if (equity < limits.dailyLoss) {
    const reason = `max_daily_loss (${terms.maxDailyLossPct}%): equity ${equity.toFixed(2)} fell below ${limits.dailyLoss.toFixed(2)}`;
    return { kind: 'breached', breach: { rule: 'max_daily_loss', limit: limits.dailyLoss, reason } };
  }
  if (equity >= limits.profitTarget && tradingDays >= terms.minTradingDays) return PASSED;
  return NONE;
}

/** judge() on a snapshot, its limits computed from it. */
export function evaluate(terms: Terms, s: AccountSnapshot): Verdict {
  return judge(terms, limitsOf(terms, s), s.equity, s.tradingDays);
}

/** Headroom before each limit, snake_case for the analytics Struct. */
export function headroom(terms: Terms, s: AccountSnapshot): Record<string, number> {
  const limits = limitsOf(terms, s);
  return {
    daily_loss_remaining: roundMoney(Math.max(0, s.equity - limits.dailyLoss)),
    total_loss_remaining: roundMoney(Math.max(0, s.equity - limits.totalLoss)),
    profit_target_remaining: roundMoney(Math.max(0, limits.profitTarget - s.equity)),
    trading_days: s.tradingDays,
    min_trading_days: terms.minTradingDays,
  };
}
