import type { Sequelize } from '@propdesk/kit';
import { startOfDayBalances, type DayStart } from '../data/account-days';
import { tradingDayOf, tradingDayStart } from '../domain/calendar';
import { startDay, storeThresholds, type AccountState } from './account-state';
import { PEAK, type AccountTable } from './account-table';

/** Accounts whose day's start is read in one statement. */
export const SOD_CHUNK = 5000;

export interface DayStartsOptions {
  sequelize: Sequelize;
  rolloverHourUtc: number;
  table: AccountTable;
  /** The indexed accounts (the index's map): a state no longer indexed gets its start but not its thresholds stored. */
  accounts: ReadonlyMap<number, AccountState>;
}

/**
 * The trading day the engine marks in, and each indexed account's start of it (balance, equity,
 * highest end-of-day balance: what the daily limit and a trailing_eod floor are measured from),
 * read in batches: for every indexed account when a new day begins, and for accounts indexed later.
 */
export class DayStarts {
  /** The trading day the engine is in (undefined until it first marks). */
  day?: string;

  constructor(private readonly options: DayStartsOptions) {}

  /** The trading day of `now`; on a new one, every indexed account's start of day is read (batched) first. */
  async ensure(now: Date): Promise<string> {
    const day = tradingDayOf(now, this.options.rolloverHourUtc);
    if (day !== this.day) {
      await this.start([...this.options.accounts.values()], now, day);
      this.day = day;
    }
    return day;
  }

  /** Starts `day` for the states not started in it yet (their limits measured from the start read). */
  async start(states: AccountState[], now: Date, day: string): Promise<void> {
    const stale = states.filter((s) => s.sodDay !== day);
    for (let i = 0; i < stale.length; i += SOD_CHUNK) {
      const chunk = stale.slice(i, i + SOD_CHUNK);
      const sods = await this.read(chunk.map((s) => s.account.number), now, day);
      for (const s of chunk) {
        const balance = s.account.balance;
        startDay(s, day, sods.get(s.account.number) ?? { balance, equity: balance, highestEodBalance: balance }, this.options.table.get(s.slot, PEAK));
        if (this.options.accounts.get(s.account.number) === s) storeThresholds(s, this.options.table);
      }
    }
  }

  /** The stored (or first written) start of `day` of each account. */
  read(numbers: number[], now: Date, day: string): Promise<Map<number, DayStart>> {
    return startOfDayBalances(this.options.sequelize, numbers, day, tradingDayStart(now, this.options.rolloverHourUtc));
  }
}
