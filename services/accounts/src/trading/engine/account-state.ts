import type { Account } from '../core-port';
import type { DayStart } from '../data/account-days';
import type { Position } from '../data/positions';
import type { TradingCalendar } from '../domain/calendar';
import { limitsOf, startDayLimits, thresholdsOf, type Limits } from '../domain/rules';
import { warningKey } from '../use-cases/record-warnings';
import { BREACH_BELOW, PASS_AT_OR_ABOVE, WARN_BELOW, type AccountTable } from './account-table';

/** What a replica's engine keeps per account with live positions (the hot figures are in its AccountTable slot). */
export interface AccountState {
  /** Its row in the AccountTable's arrays, kept while the account is indexed. */
  slot: number;
  account: Account;
  positions: Map<string, Position>;
  tradingDays: number;
  /** The trading day of its phase (SPEC 15 trading_day, or the service's): when its day rolls over. */
  calendar: TradingCalendar;
  sodDay?: string;
  sod?: number;
  /** The day's start as the daily and trailing_eod rules read it (equity, highest end-of-day balance). */
  dayStart?: DayStart;
  /** Warnings already sent (rule:period:attempt), so a mark past a warning level asks the database once. */
  warned: Set<string>;
  /** With a consistency rule: the closed profit of each trading day of the attempt (reloaded with every deal). */
  dayProfits?: Array<{ day: string; profit: number }>;
  /**
   * The levels the rules judge the account's marks against (domain/rules.ts judge): the daily
   * one (and its warning level) is set once the day's start is known (-Infinity until then), the
   * total one follows the peak when the terms say trailing, the highest end-of-day balance when
   * trailing_eod. Their thresholds are in the table, recomputed from these.
   */
  limits: Limits;
  weekendChecked: Set<string>;
}

/**
 * Whether a reload still describes the same money as what this replica learnt before: a reset
 * (new attempt) or a payout moves the money the day, the peak and the marks are measured from.
 */
export function sameMoney(previous: AccountState | undefined, account: Account): previous is AccountState {
  return (
    previous !== undefined &&
    previous.account.attempt === account.attempt &&
    (previous.account.payoutAt?.getTime() ?? 0) === (account.payoutAt?.getTime() ?? 0)
  );
}

/**
 * The state of an account after a reload, carrying over what this replica learnt before (the
 * day's start, warnings sent, weekend checks; the running peak and the writer's figures stay in
 * its slot) unless a reset or payout happened since (`previous` is then undefined). A balance
 * change since the start-of-day figure was read does not move it: it is fixed per day.
 */
export function accountState(
  account: Account,
  positions: Position[],
  tradingDays: number,
  previous: AccountState | undefined,
  slot: number,
  peakEquity: number,
  calendar: TradingCalendar,
): AccountState {
  const sod = previous?.sod;
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
    limits.profitCap = Infinity;
  }
  return {
    slot,
    account,
    positions: new Map(positions.map((p) => [p.id, p])),
    tradingDays,
    calendar,
    sodDay: previous?.sodDay,
    sod,
    dayStart,
    warned: previous?.warned ?? new Set(),
    limits,
    weekendChecked: previous?.weekendChecked ?? new Set(),
  };
}

/** A new trading day: its start (balance, equity, highest end-of-day balance), and the limits measured from it. */
export function startDay(s: AccountState, day: string, start: DayStart, peakEquity: number): void {
  s.sodDay = day;
  s.sod = start.balance;
  s.dayStart = start;
  const terms = s.account.terms;
  startDayLimits(terms, s.limits, { initialBalance: s.account.initialBalance, startOfDayBalance: start.balance, startOfDayEquity: start.equity });
  if (terms.totalLossMode === 'trailing_eod') {
    const fresh = limitsOf(terms, { initialBalance: s.account.initialBalance, startOfDayBalance: start.balance, peakEquity, highestEodBalance: start.highestEodBalance });
    s.limits.totalLoss = fresh.totalLoss;
    s.limits.warnTotal = fresh.warnTotal;
  }
}

/**
 * Writes the account's thresholds (domain/rules.ts thresholdsOf) into its table slot. A warning
 * already sent for the current period (the day for the daily rule, the attempt for the total one)
 * is not armed again, so an account lingering below a warning level costs its marks nothing more.
 */
export function storeThresholds(s: AccountState, table: AccountTable): void {
  const { attempt } = s.account;
  const day = s.sodDay ?? '';
  const limits =
    s.warned.size === 0
      ? s.limits
      : {
          ...s.limits,
          warnDaily: s.warned.has(warningKey('max_daily_loss', day, attempt)) ? -Infinity : s.limits.warnDaily,
          warnTotal: s.warned.has(warningKey('max_total_loss', day, attempt)) ? -Infinity : s.limits.warnTotal,
        };
  const t = thresholdsOf(s.account.terms, limits, s.tradingDays);
  table.set(s.slot, BREACH_BELOW, t.breachBelow);
  table.set(s.slot, PASS_AT_OR_ABOVE, t.passAtOrAbove);
  table.set(s.slot, WARN_BELOW, t.warnBelow);
}
