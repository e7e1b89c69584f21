import type { Sequelize, Transaction } from '@propdesk/kit';
import type { Account } from '../core-port';
import { livePositionsOfAccounts } from '../data/positions';
import { clockDeadlinesDue, nextClockDeadline } from '../data/rule-deadlines';
import { applyDeadlines } from './time-rules';
import { calendarOf, nextWeekendStart, utcCalendar, type TradingCalendar } from '../domain/calendar';
import { flagWeekendHoldingsLocked } from './flag-weekend-holding';
import { rollTradingDay } from './roll-trading-day';
import type { TradingContext } from './trading-context';

/** What a time effect sees of a test clock while a step of its advance is being decided. */
export interface ClockView {
  sequelize: Sequelize;
  tx: Transaction;
  clockId: string;
  /** The clock's active accounts, locked for the step, in number order. */
  accounts: readonly Account[];
}

/** One step of an advance: the moment reached, inside the transaction that also records it as the clock's time. */
export interface ClockStep extends ClockView {
  moment: Date;
  /** The clock's market at the moment: ctx.now() is the moment, ctx.quote the clock's prices. */
  ctx: TradingContext;
}

/**
 * Something the passing of time does to a test clock's accounts (SPEC 13): a trading day's
 * rollover, a weekend's start; SPEC 15's time rules (phase time limits, inactivity, session ends,
 * lock expiry). An advance applies them in time order, each at its moment,
 * in the order of the list when several fall on one moment.
 */
export interface TimeEffect {
  readonly name: string;
  /** The first moment strictly after `after` at which it acts, from what it sees of the clock (null: none). */
  nextMoment(after: Date, view: ClockView): Promise<Date | null> | Date | null;
  /** Applies it at `step.moment`, inside the step's transaction. */
  apply(step: ClockStep): Promise<void>;
}

/**
 * Each trading day's start: a new daily reference (balance, equity or the higher, SPEC 10) and a
 * new end-of-day trailing floor, so an account may breach, pass or be warned at that moment. Days
 * start when each account's phase says (SPEC 15 trading_day: a zone's wall time, daylight saving
 * included), the service's day otherwise: the next moment is the earliest of the calendars in use.
 */
export function tradingDayRollover(rolloverHourUtc: number): TimeEffect {
  const calendarsOf = (accounts: readonly Account[]): TradingCalendar[] => [
    ...new Set([utcCalendar(rolloverHourUtc), ...accounts.map((a) => calendarOf(a.terms, rolloverHourUtc))]),
  ];
  return {
    name: 'trading_day_rollover',
    nextMoment: (after, view) => new Date(Math.min(...calendarsOf(view.accounts).map((c) => c.nextStart(after).getTime()))),
    apply: (step) =>
      rollTradingDay(
        step.ctx,
        step.tx,
        step.accounts.filter((a) => calendarOf(a.terms, rolloverHourUtc).startOf(step.moment).getTime() === step.moment.getTime()),
      ),
  };
}

/** Each weekend's start (Saturday 00:00 UTC): positions held into it are flagged where the terms say so. */
export const weekendStart: TimeEffect = {
  name: 'weekend_start',
  nextMoment: (after) => new Date(nextWeekendStart(new Date(after.getTime() + 1))),
  async apply(step) {
    const live = await livePositionsOfAccounts(
      step.sequelize,
      step.accounts.map((a) => a.number),
      step.tx,
    );
    await flagWeekendHoldingsLocked(step.ctx, step.tx, step.accounts, live);
  },
};

/**
 * SPEC 15's time rules on a clock: its accounts' deadlines (time limits, inactivity, session ends,
 * lock expiry, rule_deadlines), each at its own moment; last at a moment, after the day's rollover.
 */
export const ruleDeadlines: TimeEffect = {
  name: 'rule_deadlines',
  nextMoment: (after, view) => nextClockDeadline(view.sequelize, view.tx, view.clockId, after),
  async apply(step) {
    // The step holds the clock's active accounts locked: a deadline of any other no longer applies.
    const accounts = new Map(step.accounts.map((a) => [a.number, a]));
    await applyDeadlines(step.ctx, step.tx, accounts, await clockDeadlinesDue(step.sequelize, step.tx, step.clockId, step.moment));
  },
};

/** The effects of time, in the order they apply at one moment. */
export function timeEffects(rolloverHourUtc: number): TimeEffect[] {
  return [tradingDayRollover(rolloverHourUtc), weekendStart, ruleDeadlines];
}

/** The next moment in (after, until] at which an effect acts, and the effects due then in their order (null: none before until). */
export async function nextStep(effects: readonly TimeEffect[], after: Date, until: Date, view: ClockView): Promise<{ moment: Date; due: TimeEffect[] } | null> {
  const moments = await Promise.all(effects.map(async (effect) => ({ effect, at: await effect.nextMoment(after, view) })));
  let earliest = Infinity;
  for (const m of moments) if (m.at && m.at.getTime() > after.getTime()) earliest = Math.min(earliest, m.at.getTime());
  if (earliest > until.getTime()) return null;
  return { moment: new Date(earliest), due: moments.filter((m) => m.at?.getTime() === earliest).map((m) => m.effect) };
}
