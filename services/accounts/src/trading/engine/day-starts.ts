import type { Sequelize } from '@propdesk/kit';
import { startOfDayBalances, type DayStart } from '../data/account-days';
import type { TradingCalendar } from '../domain/calendar';
import { startDay, storeThresholds, type AccountState } from './account-state';
import { PEAK, type AccountTable } from './account-table';

/** Accounts whose day's start is read in one statement. */
export const SOD_CHUNK = 5000;

export interface DayStartsOptions {
  sequelize: Sequelize;
  table: AccountTable;
  /** The indexed accounts (the index's map): a state no longer indexed gets its start but not its thresholds stored. */
  accounts: ReadonlyMap<number, AccountState>;
}

/**
 * The trading days the engine marks in, and each indexed account's start of its day (balance,
 * equity, highest end-of-day balance: what the daily limit, the profit cap and a trailing_eod
 * floor are measured from), read in batches: for every indexed account of a calendar when a new
 * day of that calendar begins, and for accounts indexed later. Accounts keep the trading day of
 * their phase (SPEC 15 trading_day: a zone and a wall time), so the engine keeps the current day
 * of each calendar in use; most firms have one or two.
 */
export class DayStarts {
  /** The day each calendar in use is in (by key), once the engine began it. */
  private readonly current = new Map<string, string>();
  private readonly calendars = new Map<string, TradingCalendar>();

  constructor(private readonly options: DayStartsOptions) {}

  /** A calendar an indexed account lives by: its day is begun by the next ensure(). */
  use(calendar: TradingCalendar): void {
    if (!this.calendars.has(calendar.key)) this.calendars.set(calendar.key, calendar);
  }

  /** The day the engine began for a calendar (undefined: not yet). */
  dayOf(calendar: TradingCalendar): string | undefined {
    return this.current.get(calendar.key);
  }

  /** For each calendar in use whose day turned at `now`: every indexed account of it gets the new day's start (batched) first. */
  async ensure(now: Date): Promise<void> {
    for (const calendar of this.calendars.values()) {
      const day = calendar.dayOf(now);
      if (this.current.get(calendar.key) === day) continue;
      await this.start(
        [...this.options.accounts.values()].filter((s) => s.calendar === calendar),
        now,
      );
      this.current.set(calendar.key, day);
    }
  }

  /** Starts the current day (at `now`) of the states not started in it yet (their limits measured from the start read). */
  async start(states: AccountState[], now: Date): Promise<void> {
    const byDay = new Map<string, { calendar: TradingCalendar; day: string; states: AccountState[] }>();
    for (const s of states) {
      const day = s.calendar.dayOf(now);
      if (s.sodDay === day) continue;
      const key = `${s.calendar.key} ${day}`;
      const group = byDay.get(key) ?? { calendar: s.calendar, day, states: [] };
      group.states.push(s);
      byDay.set(key, group);
    }
    for (const { calendar, day, states: stale } of byDay.values()) {
      for (let i = 0; i < stale.length; i += SOD_CHUNK) {
        const chunk = stale.slice(i, i + SOD_CHUNK);
        const sods = await this.read(
          chunk.map((s) => s.account.number),
          calendar,
          day,
        );
        for (const s of chunk) {
          const balance = s.account.balance;
          startDay(s, day, sods.get(s.account.number) ?? { balance, equity: balance, highestEodBalance: balance }, this.options.table.get(s.slot, PEAK));
          if (this.options.accounts.get(s.account.number) === s) storeThresholds(s, this.options.table);
        }
      }
    }
  }

  /** The stored (or first written) start of `day` of each account (all of `calendar`). */
  read(numbers: number[], calendar: TradingCalendar, day: string): Promise<Map<number, DayStart>> {
    return startOfDayBalances(this.options.sequelize, numbers, day, calendar.startOfDay(day));
  }
}
