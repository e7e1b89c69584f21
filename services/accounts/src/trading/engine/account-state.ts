import type { Account } from '../core-port';
import type { DayStart } from '../data/account-days';
import type { EquitySample } from '../data/equity-minutes';
import type { Position } from '../data/positions';
import { limitsOf, startDayLimits, type Limits } from '../domain/rules';

/** What a replica's engine keeps per account with live positions. */
export interface AccountState {
  account: Account;
  positions: Map<string, Position>;
  tradingDays: number;
  peakEquity: number;
  equity: number;
  sodDay?: string;
  sod?: number;
  /** The day's start as the daily and trailing_eod rules read it (equity, highest end-of-day balance). */
  dayStart?: DayStart;
  /** Warnings already sent (rule:period:attempt), so a mark past a warning level asks the database once. */
  warned: Set<string>;
  /** With a consistency rule: the closed profit of each trading day of the attempt (reloaded with every deal). */
  dayProfits?: Array<{ day: string; profit: number }>;
  /**
   * The levels the rules judge the account's marks against (domain/rules.ts judge), kept so a
   * mark costs no recomputation: the daily one is set once the day's start is known (-Infinity
   * until then), the total one follows the peak when the terms say trailing.
   */
  limits: Limits;
  /** Per open position: the instant after which holding it means holding over a weekend. */
  weekendStarts: Map<string, number>;
  weekendChecked: Set<string>;
  /** The open minute's equity bucket, flushed when the minute ends. */
  bucket?: EquitySample;
  /** Deepest mark below the running peak equity seen here, and what of it reached the database. */
  drawdown: number;
  drawdownPct: number;
  drawdownWritten: number;
}

/**
 * The state of an account after a reload, carrying over what this replica learnt before (its
 * running peak and drawdown, the day's start, weekend checks, the open minute's bucket). A
 * balance change since the start-of-day figure was read does not move it: it is fixed per day.
 */
export function accountState(account: Account, positions: Position[], tradingDays: number, seen: AccountState | undefined): AccountState {
  // A reset (new attempt) or a payout moves the money the day and the peak are measured from: start afresh.
  const previous =
    seen && seen.account.attempt === account.attempt && (seen.account.payoutAt?.getTime() ?? 0) === (account.payoutAt?.getTime() ?? 0) ? seen : undefined;
  const sod = previous?.sod;
  const peakEquity = Math.max(account.peakEquity, previous?.peakEquity ?? 0);
  const dayStart = previous?.dayStart;
  const limits = limitsOf(account.terms, {
    initialBalance: account.initialBalance,
    startOfDayBalance: sod ?? account.balance,
    startOfDayEquity: dayStart?.equity,
    highestEodBalance: dayStart?.highestEodBalance,
    peakEquity,
  });
  if (sod === undefined) {
    limits.dailyLoss = -Infinity;
    limits.warnDaily = -Infinity;
  }
  return {
    account,
    positions: new Map(positions.map((p) => [p.id, p])),
    tradingDays,
    peakEquity,
    equity: previous?.equity ?? account.equity,
    sodDay: previous?.sodDay,
    sod,
    dayStart,
    warned: previous?.warned ?? new Set(),
    limits,
    weekendStarts: previous?.weekendStarts ?? new Map(),
    weekendChecked: previous?.weekendChecked ?? new Set(),
    bucket: previous?.bucket,
    drawdown: previous?.drawdown ?? 0,
    drawdownPct: previous?.drawdownPct ?? 0,
    drawdownWritten: previous?.drawdownWritten ?? 0,
  };
}

/** A new trading day: its start-of-day balance, and the daily limit measured from it. */
export function startDay(s: AccountState, day: string, start: DayStart): void {
  s.sodDay = day;
  s.sod = start.balance;
  s.dayStart = start;
  const terms = s.account.terms;
  startDayLimits(terms, s.limits, { initialBalance: s.account.initialBalance, startOfDayBalance: start.balance, startOfDayEquity: start.equity });
  if (terms.totalLossMode === 'trailing_eod') {
    const fresh = limitsOf(terms, { initialBalance: s.account.initialBalance, startOfDayBalance: start.balance, peakEquity: s.peakEquity, highestEodBalance: start.highestEodBalance });
    s.limits.totalLoss = fresh.totalLoss;
    s.limits.warnTotal = fresh.warnTotal;
  }
}
