import type { LockRule } from '@propdesk/kit';
import type { Terms } from '../core-port';
import { roundMoney } from './instruments';

/**
 * The evaluation rules of a phase (SPEC sections 9 and 10), the only place where a breach, a
 * pass or a warning is decided. Every rule is an equity threshold computed from the account's
 * state (start-of-day figures, peaks), so the engine keeps them per account and a mark costs a
 * few comparisons: breach below `totalLoss`/`dailyLoss`, pass at or above `profitTarget`, warn
 * below `warnDaily`/`warnTotal`.
 */

/** What the evaluation needs to know about an account at one instant. */
export interface AccountSnapshot {
  initialBalance: number;
  balance: number;
  equity: number;
  /** The highest equity of the current attempt (trailing). */
  peakEquity: number;
  /** The balance at the start of the trading day. */
  startOfDayBalance: number;
  /** The equity at the start of the trading day (basis equity / higher); default: the start-of-day balance. */
  startOfDayEquity?: number;
  /** The highest end-of-day balance of the current attempt (trailing_eod); default: the initial balance. */
  highestEodBalance?: number;
  tradingDays: number;
}

/** The rules that breach: the equity thresholds, and SPEC 15's time rules (the scheduler's, rule-pack.ts). */
export type BreachRule = 'max_daily_loss' | 'max_total_loss' | 'time_limit' | 'inactivity';

export interface Breach {
  rule: BreachRule | 'manual';
  /** The equity level that was crossed (for manual: null). */
  limit: number | null;
  reason: string;
}

/** SPEC 15: a rule that closes the positions and locks the account until the next trading day, instead of breaching it. */
export interface DayLock {
  rule: LockRule;
  /** The equity level reached (the daily loss limit, or the profit cap). */
  limit: number;
  reason: string;
}

/** The reference the daily loss is measured from, fixed at the start of each trading day. */
export function dailyReference(terms: Terms, s: Pick<AccountSnapshot, 'startOfDayBalance' | 'startOfDayEquity'>): number {
  const equity = s.startOfDayEquity ?? s.startOfDayBalance;
  switch (terms.dailyLossBasis) {
    case 'equity':
      return equity;
    case 'higher':
      return Math.max(s.startOfDayBalance, equity);
    default:
      return s.startOfDayBalance;
  }
}

export function dailyAllowance(terms: Terms, initialBalance: number): number {
  return (terms.maxDailyLossPct / 100) * initialBalance;
}

export function totalAllowance(terms: Terms, initialBalance: number): number {
  return (terms.maxTotalLossPct / 100) * initialBalance;
}

/** Equity below this breaches the daily-loss rule: the day's reference minus pct of the initial balance. */
export function dailyLossLimit(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance' | 'startOfDayEquity'>): number {
  return roundMoney(dailyReference(terms, s) - dailyAllowance(terms, s.initialBalance));
}

/**
 * The level the total-loss floor is measured from: the initial balance (static), the peak equity
 * (trailing, intraday), or the highest end-of-day balance (trailing_eod); never below the initial.
 */
export function totalLossBase(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'peakEquity' | 'highestEodBalance'>): number {
  switch (terms.totalLossMode) {
    case 'trailing':
      return Math.max(s.peakEquity, s.initialBalance);
    case 'trailing_eod':
      return Math.max(s.highestEodBalance ?? s.initialBalance, s.initialBalance);
    default:
      return s.initialBalance;
  }
}

/** Equity below this breaches the total-loss rule; with trailing_stops_at_initial a trailing floor stops at the initial balance. */
export function totalLossLimit(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'peakEquity' | 'highestEodBalance'>): number {
  const floor = totalLossBase(terms, s) - totalAllowance(terms, s.initialBalance);
  return roundMoney(terms.trailingStopsAtInitial && terms.totalLossMode !== 'static' ? Math.min(floor, s.initialBalance) : floor);
}

/** A funded phase has no target: it never passes (Infinity). */
export function profitTarget(terms: Terms, initialBalance: number): number {
  if (terms.profitTargetPct === null) return Number.POSITIVE_INFINITY;
  return roundMoney(initialBalance * (1 + terms.profitTargetPct / 100));
}

/**
 * SPEC 15 daily_profit_cap_pct: equity at or above this locks the account for the day (the day's
 * reference plus pct of the initial balance); Infinity without the rule.
 */
export function profitCapLevel(terms: Terms, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance' | 'startOfDayEquity'>): number {
  if (terms.dailyProfitCapPct === null) return Number.POSITIVE_INFINITY;
  return roundMoney(dailyReference(terms, s) + (terms.dailyProfitCapPct / 100) * s.initialBalance);
}

/** The equity levels an account is judged against; the engine keeps them precomputed per account. */
export interface Limits {
  dailyLoss: number;
  totalLoss: number;
  profitTarget: number;
  /** SPEC 15: the day's profit cap (Infinity: none, or the day's start not known yet). */
  profitCap: number;
  /** account.warning below these (-Infinity: no warning). */
  warnDaily: number;
  warnTotal: number;
}

/** The equity below which `warning_at_pct` of an allowance is used (the allowance ends at `limit`). */
function warningLevel(terms: Terms, limit: number, allowance: number): number {
  if (terms.warningAtPct === null) return Number.NEGATIVE_INFINITY;
  return roundMoney(limit + allowance - (terms.warningAtPct / 100) * allowance);
}

export function limitsOf(
  terms: Terms,
  s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance' | 'startOfDayEquity' | 'peakEquity' | 'highestEodBalance'>,
): Limits {
  const dailyLoss = dailyLossLimit(terms, s);
  const totalLoss = totalLossLimit(terms, s);
  return {
    dailyLoss,
    totalLoss,
    profitTarget: profitTarget(terms, s.initialBalance),
    profitCap: profitCapLevel(terms, s),
    warnDaily: warningLevel(terms, dailyLoss, dailyAllowance(terms, s.initialBalance)),
    warnTotal: warningLevel(terms, totalLoss, totalAllowance(terms, s.initialBalance)),
  };
}

/** A new trading day: the daily limit and warning level from the day's reference. */
export function startDayLimits(terms: Terms, limits: Limits, s: Pick<AccountSnapshot, 'initialBalance' | 'startOfDayBalance' | 'startOfDayEquity'>): void {
  limits.dailyLoss = dailyLossLimit(terms, s);
  limits.profitCap = profitCapLevel(terms, s);
  limits.warnDaily = warningLevel(terms, limits.dailyLoss, dailyAllowance(terms, s.initialBalance));
}

/** Intraday trailing: the total-loss floor (and its warning level) follow the peak equity. */
export function followPeak(terms: Terms, limits: Limits, initialBalance: number, peakEquity: number): void {
  if (terms.totalLossMode !== 'trailing') return;
  limits.totalLoss = totalLossLimit(terms, { initialBalance, peakEquity });
  limits.warnTotal = warningLevel(terms, limits.totalLoss, totalAllowance(terms, initialBalance));
}

/**
 * Consistency: the best trading day's profit is at most consistency_pct of the phase's total
 * profit (the days' profits of the current attempt). Holds trivially without the rule; never
 * with no total profit.
 */
export function consistencyHolds(terms: Terms, dailyProfits: readonly number[]): boolean {
  if (terms.consistencyPct === null) return true;
  const total = dailyProfits.reduce((sum, p) => sum + p, 0);
  if (!(total > 0)) return false;
  const best = Math.max(...dailyProfits);
  return best <= (terms.consistencyPct / 100) * total + 0.005;
}

export type Verdict = { kind: 'breached'; breach: Breach } | { kind: 'passed' } | { kind: 'locked'; lock: DayLock } | { kind: 'none' };

const NONE: Verdict = { kind: 'none' };
const PASSED: Verdict = { kind: 'passed' };

/**
 * The one evaluation decision, for the engine's marks and the locked re-check alike. A limit is
 * crossed when equity is strictly below it: equity exactly at the limit is still inside the
 * allowance (the FTMO reading). Total loss is checked first, as the graver finding. Passed:
 * equity at or above the profit target with at least the minimum trading days and (when the
 * caller knows the days' profits) the consistency rule holding. SPEC 15: with daily_loss_action
 * lock, the daily loss locks the account for the day instead of breaching it (rule daily_lock);
 * equity at or above the day's profit cap locks it too (rule daily_profit_cap), a pass first.
 */
export function judge(terms: Terms, limits: Limits, equity: number, tradingDays: number, consistent = true): Verdict {
  if (equity < limits.totalLoss) {
    const reason = `max_total_loss (${terms.maxTotalLossPct}% ${terms.totalLossMode}): equity ${equity.toFixed(2)} fell below ${limits.totalLoss.toFixed(2)}`;
    return { kind: 'breached', breach: { rule: 'max_total_loss', limit: limits.totalLoss, reason } };
  }
  if (equity < limits.dailyLoss) {
    const what = `(${terms.maxDailyLossPct}% of the ${terms.dailyLossBasis} at the start of the day): equity ${equity.toFixed(2)} fell below ${limits.dailyLoss.toFixed(2)}`;
    if (terms.dailyLossAction === 'lock') {
      return { kind: 'locked', lock: { rule: 'daily_lock', limit: limits.dailyLoss, reason: `daily_lock: max_daily_loss ${what}; locked until the next trading day` } };
    }
    return { kind: 'breached', breach: { rule: 'max_daily_loss', limit: limits.dailyLoss, reason: `max_daily_loss ${what}` } };
  }
  if (equity >= limits.profitTarget && tradingDays >= terms.minTradingDays && consistent) return PASSED;
  if (equity >= limits.profitCap) {
    const reason = `daily_profit_cap (${terms.dailyProfitCapPct}% of the initial balance over the day's reference): equity ${equity.toFixed(2)} reached ${limits.profitCap.toFixed(2)}; locked until the next trading day`;
    return { kind: 'locked', lock: { rule: 'daily_profit_cap', limit: limits.profitCap, reason } };
  }
  return NONE;
}

/**
 * The equity levels at which the rules change their answer for an account, so the engine can mark
 * an account with three comparisons and take a database round trip only when one is crossed:
 * judge() says breached (or locked by the daily loss) exactly when equity < breachBelow, passed
 * (consistency aside, weighed by the caller only past this level) or locked by the profit cap
 * exactly when it says nothing worse and equity >= passAtOrAbove,
 * and warningsAt() finds a warning exactly when equity < warnBelow (-Infinity: no warning_at_pct
 * in these terms). Inputs are the terms and the limits of the account's running state (limitsOf:
 * every daily basis and total-loss mode); a level that moves with the state is recomputed by the
 * caller when that state moves: a trailing total loss with the peak (followPeak, see
 * thresholdsMoveWith), the daily one and trailing_eod at the start of the day (startDayLimits).
 */
export interface Thresholds {
  breachBelow: number;
  passAtOrAbove: number;
  warnBelow: number;
}

export function thresholdsOf(terms: Terms, limits: Limits, tradingDays: number): Thresholds {
  return {
    breachBelow: Math.max(limits.totalLoss, limits.dailyLoss),
    passAtOrAbove: Math.min(tradingDays >= terms.minTradingDays ? limits.profitTarget : Infinity, limits.profitCap),
    warnBelow: Math.max(limits.warnDaily, limits.warnTotal),
  };
}

/** Which running figures move an account's thresholds between two days, so the engine recomputes them only then. */
export function thresholdsMoveWith(terms: Terms): { peakEquity: boolean } {
  return { peakEquity: terms.totalLossMode === 'trailing' };
}

/** judge() on a snapshot, its limits computed from it. */
export function evaluate(terms: Terms, s: AccountSnapshot, consistent = true): Verdict {
  return judge(terms, limitsOf(terms, s), s.equity, s.tradingDays, consistent);
}

export type WarningRule = 'max_daily_loss' | 'max_total_loss';

export interface Warning {
  rule: WarningRule;
  /** The share of the allowance used, in percent (2 decimals). */
  usedPct: number;
  /** The breach level of the rule. */
  limit: number;
}

/** The warnings an equity triggers (before any breach): each rule whose warning level it is below. */
export function warningsAt(terms: Terms, limits: Limits, equity: number, initialBalance: number): Warning[] {
  const found: Warning[] = [];
  const used = (limit: number, allowance: number) => roundMoney(((limit + allowance - equity) / allowance) * 100);
  if (equity < limits.warnDaily) found.push({ rule: 'max_daily_loss', usedPct: used(limits.dailyLoss, dailyAllowance(terms, initialBalance)), limit: limits.dailyLoss });
  if (equity < limits.warnTotal) found.push({ rule: 'max_total_loss', usedPct: used(limits.totalLoss, totalAllowance(terms, initialBalance)), limit: limits.totalLoss });
  return found;
}

/** Headroom before each limit, snake_case for the analytics Struct; the phase's own terms and basis. */
export function headroom(terms: Terms, s: AccountSnapshot): Record<string, number | string | null> {
  const limits = limitsOf(terms, s);
  return {
    daily_loss_remaining: roundMoney(Math.max(0, s.equity - limits.dailyLoss)),
    daily_loss_limit: limits.dailyLoss,
    daily_loss_basis: terms.dailyLossBasis,
    total_loss_remaining: roundMoney(Math.max(0, s.equity - limits.totalLoss)),
    total_loss_limit: limits.totalLoss,
    total_loss_mode: terms.totalLossMode,
    profit_target_remaining: Number.isFinite(limits.profitTarget) ? roundMoney(Math.max(0, limits.profitTarget - s.equity)) : null,
    trading_days: s.tradingDays,
    min_trading_days: terms.minTradingDays,
  };
}

/** A warning is sent once per period: the trading day for the daily rule, the attempt for the total one. */
export function warningPeriod(rule: WarningRule, day: string): string {
  return rule === 'max_daily_loss' ? day : 'attempt';
}
