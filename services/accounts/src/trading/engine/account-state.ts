import type { Account } from '../core-port';
import type { Position } from '../data/positions';
import { dailyLossLimit, limitsOf, thresholdsOf, type Limits } from '../domain/rules';
import { BREACH_BELOW, PASS_AT_OR_ABOVE, WARN_BELOW, type AccountTable } from './account-table';

/** What a replica's engine keeps per account with live positions (the hot figures are in its AccountTable slot). */
export interface AccountState {
  /** Its row in the AccountTable's arrays, kept while the account is indexed. */
  slot: number;
  account: Account;
  positions: Map<string, Position>;
  tradingDays: number;
  sodDay?: string;
  sod?: number;
  /**
   * The levels the rules judge the account's marks against (domain/rules.ts judge): the daily
   * one is set once the day's start is known (-Infinity until then), the total one follows the
   * peak when the terms say trailing. Their thresholds are in the table, recomputed from these.
   */
  limits: Limits;
  weekendChecked: Set<string>;
}

/**
 * The state of an account after a reload, carrying over what this replica learnt before (the
 * day's start, weekend checks; the running peak and the writer's figures stay in its slot). A
 * balance change since the start-of-day figure was read does not move it: it is fixed per day.
 */
export function accountState(account: Account, positions: Position[], tradingDays: number, previous: AccountState | undefined, slot: number, peakEquity: number): AccountState {
  const sod = previous?.sod;
  const limits = limitsOf(account.terms, { initialBalance: account.initialBalance, startOfDayBalance: sod ?? account.balance, peakEquity });
  if (sod === undefined) limits.dailyLoss = -Infinity;
  return {
    slot,
    account,
    positions: new Map(positions.map((p) => [p.id, p])),
    tradingDays,
    sodDay: previous?.sodDay,
    sod,
    limits,
    weekendChecked: previous?.weekendChecked ?? new Set(),
  };
}

/** A new trading day: its start-of-day balance, and the daily limit measured from it. */
export function startDay(s: AccountState, day: string, sod: number): void {
  s.sodDay = day;
  s.sod = sod;
  s.limits.dailyLoss = dailyLossLimit(s.account.terms, { initialBalance: s.account.initialBalance, startOfDayBalance: sod });
}

/** Writes the account's thresholds (domain/rules.ts thresholdsOf) into its table slot. */
export function storeThresholds(s: AccountState, table: AccountTable): void {
  const t = thresholdsOf(s.account.terms, s.limits, s.tradingDays);
  table.set(s.slot, BREACH_BELOW, t.breachBelow);
  table.set(s.slot, PASS_AT_OR_ABOVE, t.passAtOrAbove);
  table.set(s.slot, WARN_BELOW, t.warnBelow);
}
