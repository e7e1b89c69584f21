import type { Sequelize } from '@propdesk/kit';
import { readAccounts, type Account } from '../core-port';
import type { DayStart } from '../data/account-days';
import { dailyProfitsOf } from '../data/daily-profits';
import { liveAccountNumbers } from '../data/engine-leases';
import { allLivePositions, livePositionsOfAccounts, recentlyChangedAccounts, tradingDaysOf, type Position } from '../data/positions';
import { calendarOf, nextWeekendStart, type TradingCalendar } from '../domain/calendar';
import { dateOf, type Clock } from '../domain/clock';
import { thresholdsMoveWith } from '../domain/rules';
import { accountState, sameMoney, startDay, storeThresholds, type AccountState } from './account-state';
import { BALANCE, EQUITY, PEAK, TRAILING, type AccountTable } from './account-table';
import { DayStarts } from './day-starts';
import type { EquityWriter } from './equity-writer';
import type { Marker } from './marker';
import type { EngineMetrics } from './metrics';
import { PositionBook } from './position-book';

/** How far back the tick looks for positions changed on any replica. */
const CHANGE_LOOKBACK_SECONDS = 10;

export interface AccountIndexOptions {
  sequelize: Sequelize;
  rolloverHourUtc: number;
  clock: Clock;
  table: AccountTable;
  books: Map<string, PositionBook>;
  marker: Marker;
  writer: EquityWriter;
  metrics: EngineMetrics;
  /** Whether this replica evaluates the account (replica-share.ts). */
  owns(accountNumber: number): boolean;
  /** The universe indexed: the live market's accounts (null) or one test clock's (SPEC 13); never both. */
  clockId: string | null;
}

/**
 * The accounts this replica evaluates and their live positions, in the hot path's shapes: an
 * AccountState and a table slot per account, a PositionBook per symbol. Rebuilt from committed
 * rows for the accounts a change touched (this replica's transactions at once, other replicas'
 * by the engine's tick); rebuilds are ordered by the ticket they took before reading, so a late
 * one never takes an account back in time.
 */
export class AccountIndex {
  readonly accounts = new Map<number, AccountState>();
  /** The trading day and each indexed account's start of it. */
  readonly days: DayStarts;
  /** Rebuilds in the order they began reading, and the last one applied to each account. */
  private ticket = 0;
  private readonly appliedTicket = new Map<number, number>();
  /** When each account's positions last changed, as this replica saw it (catchUp). */
  private readonly knownChanges = new Map<number, number>();

  constructor(private readonly options: AccountIndexOptions) {
    this.days = new DayStarts({ sequelize: options.sequelize, table: options.table, accounts: this.accounts });
  }

  /** Indexes every live position of the universe's accounts this replica owns (the engine's first load). */
  async loadAll(): Promise<void> {
    const ticket = ++this.ticket;
    const live = (await allLivePositions(this.options.sequelize, this.options.clockId)).filter((p) => this.options.owns(p.accountNumber));
    await this.rebuild([...new Set(live.map((p) => p.accountNumber))], live, ticket);
  }

  /** Indexes, for one call, the universe's accounts holding live positions of `symbol` (a test clock's quote); answers them. */
  async loadHolders(symbol: string): Promise<number[]> {
    const numbers = (await liveAccountNumbers(this.options.sequelize, symbol, this.options.clockId)).filter((n) => !this.accounts.has(n));
    await this.reload(numbers, true);
    return numbers;
  }

  /** Reloads the owned accounts whose positions changed lately (on any replica) since this replica last looked. */
  async catchUp(): Promise<void> {
    const changes = (await recentlyChangedAccounts(this.options.sequelize, CHANGE_LOOKBACK_SECONDS)).filter((c) => this.options.owns(c.accountNumber));
    const reload = changes.filter((c) => (this.knownChanges.get(c.accountNumber) ?? 0) < c.changedAt.getTime());
    for (const c of reload) this.knownChanges.set(c.accountNumber, c.changedAt.getTime());
    if (this.knownChanges.size > 10_000) this.knownChanges.clear();
    await this.reload(reload.map((c) => c.accountNumber));
  }

  /**
   * Re-reads accounts and their live positions after a change (ours or another replica's). An
   * account another replica owns is loaded only as a guest (for one call: `guests`); otherwise only
   * if still indexed, so an account handed over meanwhile is not taken back.
   */
  async reload(numbers: number[], guests = false): Promise<void> {
    if (!guests) numbers = numbers.filter((n) => this.options.owns(n) || this.accounts.has(n));
    if (numbers.length === 0) return;
    const ticket = ++this.ticket;
    await this.rebuild(numbers, await livePositionsOfAccounts(this.options.sequelize, numbers), ticket);
  }

  /**
   * Indexes the accounts as read (`live`: their live positions, read after `ticket` was taken). A
   * rebuild that began reading before another one already applied to an account holds older rows
   * for it (a balance before a close, a position since closed): that account is left as the newer
   * one published it, so a late rebuild never takes an account back in time.
   */
  private async rebuild(numbers: number[], live: Position[], ticket: number): Promise<void> {
    const { sequelize, table: t, books, marker, writer, clock } = this.options;
    const accounts = new Map((await readAccounts(sequelize, numbers)).map((a) => [a.number, a]));
    const days = await tradingDaysOf(sequelize, numbers);
    const now = dateOf(clock);
    const calendarFor = (account: Account): TradingCalendar => calendarOf(account.terms, this.options.rolloverHourUtc);
    // The day's start is read before any rebuilt state is indexed: a state published without it
    // would be judged (by a concurrent evaluate or quote) with no daily limit at all. Each account
    // is in the day the engine began for its calendar (SPEC 15 trading_day). Accounts already
    // started today with the same money keep their start: no query for them.
    const begun = new Map<number, string>();
    const unstarted = new Map<string, { calendar: TradingCalendar; day: string; numbers: number[] }>();
    for (const n of numbers) {
      const account = accounts.get(n);
      if (account?.status !== 'active') continue;
      const calendar = calendarFor(account);
      this.days.use(calendar);
      const day = this.days.dayOf(calendar);
      if (day === undefined) continue;
      begun.set(n, day);
      const previous = this.accounts.get(n);
      if (previous?.sodDay === day && sameMoney(previous, account)) continue;
      const group = unstarted.get(`${calendar.key} ${day}`) ?? { calendar, day, numbers: [] };
      group.numbers.push(n);
      unstarted.set(`${calendar.key} ${day}`, group);
    }
    const sods = new Map<number, DayStart>();
    for (const group of unstarted.values()) for (const [n, start] of await this.days.read(group.numbers, group.calendar, group.day)) sods.set(n, start);
    const consistent = [...accounts.values()].filter((a) => a.status === 'active' && a.terms.consistencyPct !== null);
    const dayProfits = await dailyProfitsOf(
      sequelize,
      consistent.map((a) => ({ number: a.number, calendar: calendarFor(a), since: a.attemptStartedAt })),
      now,
    );
    const byAccount = new Map<number, Position[]>();
    for (const p of live) {
      const list = byAccount.get(p.accountNumber);
      if (list) list.push(p);
      else byAccount.set(p.accountNumber, [p]);
    }
    const rebuilt: AccountState[] = [];
    for (const n of numbers) {
      if ((this.appliedTicket.get(n) ?? 0) > ticket) continue;
      this.appliedTicket.set(n, ticket);
      const previous = this.accounts.get(n);
      if (previous) for (const p of previous.positions.values()) books.get(p.symbol)?.remove(p.id);
      const account = accounts.get(n);
      const mine = byAccount.get(n) ?? [];
      // Accounts without live positions stay until evaluated once (a closing loss may breach), then evaluate() prunes them.
      // An account of another universe (a test clock's, for the live engine) is never indexed.
      if (!account || account.status !== 'active' || account.testClockId !== this.options.clockId) {
        if (previous) this.drop(previous);
        continue;
      }
      const slot = previous?.slot ?? t.allocate();
      // A reset or payout moved the money: what this replica learnt of the account before is dropped.
      const same = sameMoney(previous, account);
      if (previous && !same) writer.forget(slot, account);
      const peakEquity = Math.max(account.peakEquity, same ? t.get(slot, PEAK) : 0);
      const state = accountState(account, mine, days.get(n) ?? 0, same ? previous : undefined, slot, peakEquity, calendarFor(account));
      if (account.terms.consistencyPct !== null) state.dayProfits = dayProfits.get(n) ?? [];
      const day = begun.get(n);
      const start = sods.get(n);
      if (day !== undefined && day === this.days.dayOf(state.calendar) && state.sodDay !== day && start) startDay(state, day, start, peakEquity);
      this.accounts.set(n, state);
      t.states[slot] = state;
      t.set(slot, BALANCE, account.balance);
      t.set(slot, PEAK, peakEquity);
      t.set(slot, TRAILING, thresholdsMoveWith(account.terms).peakEquity ? 1 : 0);
      if (Number.isNaN(t.get(slot, EQUITY))) t.set(slot, EQUITY, account.equity);
      for (const p of mine) {
        let book = books.get(p.symbol);
        if (!book) books.set(p.symbol, (book = new PositionBook(p.symbol)));
        if (p.status === 'pending') {
          book.pending.set(p.id, p);
          continue;
        }
        if (p.status !== 'open' || p.openPrice === null) continue;
        const watched = account.terms.flagWeekendHolding && p.openedAt && !state.weekendChecked.has(p.id);
        book.add(p, slot, watched ? nextWeekendStart(p.openedAt as Date) : Infinity);
      }
      marker.remark(state);
      storeThresholds(state, t);
      rebuilt.push(state);
    }
    this.countPositions();
    this.forgetOldTickets();
    // The day turned while this rebuild read (ensure started the others), or a state's start
    // was not read above (replaced meanwhile): read now. Before the engine began a day, ensure does.
    await this.days.start(
      rebuilt.filter((s) => this.days.dayOf(s.calendar) !== undefined && s.sodDay !== this.days.dayOf(s.calendar)),
      now,
    );
  }

  /** Takes an account out of the index (its unwritten marks and open minute are kept for the next flush). */
  drop(s: AccountState): void {
    // Its last mark exact before it is kept for the next flush.
    this.options.marker.settleSlot(s.slot);
    for (const p of s.positions.values()) this.options.books.get(p.symbol)?.remove(p.id);
    this.options.writer.retire(s.slot, s.account.number);
    this.options.table.release(s.slot);
    this.accounts.delete(s.account.number);
    this.countPositions();
  }

  private countPositions(): void {
    let n = 0;
    for (const b of this.options.books.values()) n += b.size + b.pending.size;
    this.options.metrics.positions.set(n);
  }

  /** Tickets far older than any rebuild still reading are dropped (the map would otherwise keep every account ever indexed). */
  private forgetOldTickets(): void {
    if (this.appliedTicket.size <= 2 * this.accounts.size + 10_000) return;
    const horizon = this.ticket - 10_000;
    for (const [n, ticket] of this.appliedTicket) if (ticket < horizon && !this.accounts.has(n)) this.appliedTicket.delete(n);
  }
}
