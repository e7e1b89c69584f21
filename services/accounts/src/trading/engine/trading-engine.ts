import type { Logger, Sequelize } from '@propdesk/kit';
import { readAccounts, type PhaseLifecycle } from '../core-port';
import { startOfDayBalances } from '../data/account-days';
import { allLivePositions, livePositionsOfAccounts, recentlyChangedAccounts, tradingDaysOf, type Position } from '../data/positions';
import { loadQuotes, upsertQuotes } from '../data/quotes';
import { nextWeekendStart, tradingDayOf, tradingDayStart } from '../domain/calendar';
import { roundMoney, type Quote } from '../domain/instruments';
import { pendingTriggersInRange, protectiveExitInRange, rangeOf, widenRange, type QuoteRange } from '../domain/orders';
import { floatingProfit, type PricedPosition } from '../domain/pnl';
import { consistencyHolds, followPeak, judge, warningsAt } from '../domain/rules';
import { dailyProfitsOf, withToday } from '../data/daily-profits';
import { exitPosition } from '../use-cases/close-position';
import { evaluateAccount } from '../use-cases/evaluate-account';
import { recordWarnings, warningKey } from '../use-cases/record-warnings';
import { fillPendingOrder } from '../use-cases/fill-pending-order';
import { flagWeekendHolding } from '../use-cases/flag-weekend-holding';
import type { LiveEngine, TradingContext } from '../use-cases/trading-context';
import { accountState, startDay, type AccountState } from './account-state';
import { EquityWriter } from './equity-writer';

export interface TradingEngineOptions {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  now?: () => Date;
  /** The core's side of the challenge lifecycle (main.ts wires it through the port). */
  lifecycle?: PhaseLifecycle;
  /** Background tick: persists streamed quotes, picks up other replicas' changes (default 250 ms). */
  tickMs?: number;
  /** How often pending marks are considered for writing (default 1000 ms). */
  equityFlushMs?: number;
  /**
   * A streamed mark is written to the account row once it moved by at least this much (USD,
   * default 1), or once it has waited `equityMaxAgeMs` (default 15 s); unary quotes write at once.
   */
  equityWriteThreshold?: number;
  equityMaxAgeMs?: number;
}

interface QueuedQuote {
  quote: Quote;
  /** Every price of the quotes collapsed into this one, so no stop or limit is jumped over. */
  range: QuoteRange;
  waiters: Array<() => void>;
}

const CONCURRENCY = 4;
const CHANGE_LOOKBACK_SECONDS = 10;

async function runLimited<T>(items: T[], worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) await worker(items[next++]);
  });
  await Promise.all(lanes);
}

/**
 * The per-replica trading engine: a quote cache and an index symbol -> live positions, so a
 * quote touches only the positions of its symbol and the accounts holding them. The hot path
 * is in memory; the database is touched only when something crosses (a resting order
 * triggers, a stop loss or take profit is hit, a limit is crossed, a weekend flag is due) and
 * by the batched flushes of marked equity and per-minute equity history.
 *
 * Multi-replica partitioning: quotes reach any replica (round robin), and the replica that
 * receives a quote evaluates every live position of that symbol, whichever replica opened it.
 * Every replica's index covers all live positions: loaded on first use, updated at once for its own
 * transactions, and refreshed every tick from positions changed recently on any replica. A
 * replica may therefore act on a stale view, but every decision (fill, exit, breach, pass) runs
 * in a transaction that locks the account row and re-checks against committed rows, so two
 * replicas never double-fill, double-close or double-breach; the loser finds nothing to do.
 */
export class TradingEngine implements LiveEngine {
  private readonly ctx: TradingContext;
  private readonly quotes = new Map<string, Quote>();
  private readonly bySymbol = new Map<string, Map<string, Position>>();
  private readonly accounts = new Map<number, AccountState>();
  private readonly knownChanges = new Map<number, number>();
  private readonly queue = new Map<string, QueuedQuote>();
  private readonly unsavedQuotes = new Map<string, Quote>();
  private readonly writer: EquityWriter;
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private draining = false;
  private ticking = false;
  private stopped = false;

  constructor(private readonly options: TradingEngineOptions) {
    this.writer = new EquityWriter(options.sequelize, options.logger, {
      threshold: options.equityWriteThreshold ?? 1,
      maxAgeMs: options.equityMaxAgeMs ?? 15_000,
    });
    this.ctx = {
      sequelize: options.sequelize,
      logger: options.logger,
      rolloverHourUtc: options.rolloverHourUtc,
      now: options.now ?? (() => new Date()),
      quote: (symbol) => this.quotes.get(symbol),
      lifecycle: options.lifecycle,
    };
  }

  /**
   * Loads quotes and the live-position index once, on first use, then keeps them fresh in the
   * background. On first use rather than at boot: positions written before the first trading call
   * (a restore, a seed) are in the index however long ago they changed.
   */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((err: unknown) => {
      // A failed load (database unreachable at first use) is retried by the next call.
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    for (const q of await loadQuotes(this.options.sequelize)) this.quotes.set(q.symbol, q);
    const live = await allLivePositions(this.options.sequelize);
    const numbers = [...new Set(live.map((p) => p.accountNumber))];
    await this.rebuildAccounts(numbers, live);
    if (!this.stopped) {
      this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 250);
      // The engine never keeps a process alive on its own: main's stop() closes the pool.
      this.timer.unref();
    }
  }

  async context(): Promise<TradingContext> {
    await this.ready();
    return this.ctx;
  }

  /** Reads the stored latest quote of a symbol, so an order priced here sees quotes other replicas received. */
  async refreshQuote(symbol: string): Promise<Quote | undefined> {
    const [stored] = await loadQuotes(this.options.sequelize, symbol);
    const cached = this.quotes.get(symbol);
    if (stored && (!cached || stored.time.getTime() > cached.time.getTime())) this.quotes.set(symbol, stored);
    return this.quotes.get(symbol);
  }

  /** A unary quote (PublishQuote, the CLI): stored at once, evaluated before the promise resolves. */
  async publishQuote(quote: Quote): Promise<void> {
    await this.ready();
    await upsertQuotes(this.options.sequelize, [quote]);
    await this.enqueue(quote);
    // A unary quote is rare (CLI, tests) and its caller reads the account next: write the marks now.
    await this.writer.flush('marks', this.accounts.values());
  }

  /** After an order, close or breach through the API: refresh the index and evaluate that account at once. */
  async afterAccountChange(accountNumber: number): Promise<void> {
    await this.reloadAccounts([accountNumber]);
    await this.evaluate([accountNumber]);
    // The caller reads the account next (a fill's spread already shows in its equity).
    await this.writer.flush('marks', this.accounts.values());
  }

  /** A streamed quote: stored by the next tick, evaluated in order; a burst per symbol collapses to its newest quote, with the range of prices it went through (stops and limits inside the range still trigger). */
  async streamQuote(quote: Quote): Promise<void> {
    await this.ready();
    this.unsavedQuotes.set(quote.symbol, quote);
    await this.enqueue(quote);
  }

  private enqueue(quote: Quote): Promise<void> {
    return new Promise<void>((resolve) => {
      const queued = this.queue.get(quote.symbol);
      if (queued) {
        queued.quote = quote;
        queued.range = widenRange(queued.range, quote);
        queued.waiters.push(resolve);
      } else {
        this.queue.set(quote.symbol, { quote, range: rangeOf(quote), waiters: [resolve] });
      }
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let entry = this.queue.entries().next(); !entry.done; entry = this.queue.entries().next()) {
        const [symbol, queued] = entry.value;
        this.queue.delete(symbol);
        try {
          await this.processQuote(queued.quote, queued.range);
        } catch (err) {
          this.options.logger.error({ err, symbol }, 'quote evaluation failed');
        }
        for (const resolve of queued.waiters) resolve();
      }
    } finally {
      this.draining = false;
    }
  }

  private async processQuote(quote: Quote, range: QuoteRange): Promise<void> {
    this.quotes.set(quote.symbol, quote);
    const positions = this.bySymbol.get(quote.symbol);
    if (!positions || positions.size === 0) return;
    const nowMs = this.ctx.now().getTime();
    const fills: Position[] = [];
    const exits: Array<{ position: Position; reason: 'stop_loss' | 'take_profit'; price: number }> = [];
    const weekend: Position[] = [];
    const touched = new Set<number>();
    for (const p of positions.values()) {
      touched.add(p.accountNumber);
      if (p.status === 'pending') {
        if (p.price !== null && pendingTriggersInRange({ side: p.side, type: p.type, price: p.price }, range)) fills.push(p);
        continue;
      }
      const exit = protectiveExitInRange(p, range);
      if (exit) exits.push({ position: p, ...exit });
      const state = this.accounts.get(p.accountNumber);
      if (state && p.openedAt && state.account.terms.flagWeekendHolding) {
        let weekendStart = state.weekendStarts.get(p.id);
        if (weekendStart === undefined) state.weekendStarts.set(p.id, (weekendStart = nextWeekendStart(p.openedAt)));
        if (nowMs >= weekendStart && !state.weekendChecked.has(p.id)) {
          state.weekendChecked.add(p.id);
          weekend.push(p);
        }
      }
    }
    const changed = new Set<number>();
    await runLimited(fills, async (p) => {
      if (await this.guard(() => fillPendingOrder(this.ctx, p.accountNumber, p.id, p.price as number))) changed.add(p.accountNumber);
    });
    await runLimited(exits, async (e) => {
      const closed = await this.guard(() => exitPosition(this.ctx, { accountNumber: e.position.accountNumber, positionId: e.position.id, reason: e.reason, price: e.price }));
      if (closed) changed.add(e.position.accountNumber);
    });
    await runLimited(weekend, async (p) => {
      if (p.openedAt) await this.guard(() => flagWeekendHolding(this.ctx, { ...p, openedAt: p.openedAt as Date }));
    });
    if (changed.size > 0) await this.reloadAccounts([...changed]);
    await this.evaluate([...touched]);
  }

  private async guard<T>(action: () => Promise<T>): Promise<T | null> {
    try {
      return await action();
    } catch (err) {
      this.options.logger.error({ err }, 'trading action failed');
      return null;
    }
  }

  /**
   * Marks the accounts at the cached quotes, records their equity for the batched flush, and
   * hands the ones the rules judge breached or passed at that mark to a locked re-check.
   */
  async evaluate(numbers: number[]): Promise<void> {
    const now = this.ctx.now();
    const day = tradingDayOf(now, this.options.rolloverHourUtc);
    const states = numbers.map((n) => this.accounts.get(n)).filter((s): s is AccountState => s !== undefined);
    const stale = states.filter((s) => s.sodDay !== day);
    if (stale.length > 0) {
      const sods = await startOfDayBalances(this.options.sequelize, stale.map((s) => s.account.number), day, tradingDayStart(now, this.options.rolloverHourUtc));
      for (const s of stale) {
        const balance = s.account.balance;
        startDay(s, day, sods.get(s.account.number) ?? { balance, equity: balance, highestEodBalance: balance });
      }
    }
    const minute = Math.floor(now.getTime() / 60_000) * 60_000;
    const quote = this.ctx.quote;
    const suspects: AccountState[] = [];
    const warnings: AccountState[] = [];
    for (const s of states) {
      // The hot path: no allocation per account beyond what a changed mark needs.
      let floating = 0;
      for (const p of s.positions.values()) if (p.status === 'open') floating += floatingProfit(p as PricedPosition, quote);
      const equity = roundMoney(s.account.balance + floating);
      const terms = s.account.terms;
      if (equity > s.peakEquity) {
        s.peakEquity = equity;
        // A trailing floor (and its warning level) moves only when the peak does.
        followPeak(terms, s.limits, s.account.initialBalance, equity);
      }
      this.writer.mark(s, equity, minute);
      // Consistency is weighed only when it is all that stands between the account and a pass
      // (today's floating profit counts as today's).
      const consistent =
        !s.dayProfits ||
        equity < s.limits.profitTarget ||
        s.tradingDays < terms.minTradingDays ||
        consistencyHolds(terms, withToday(s.dayProfits, day, equity - s.account.balance));
      if (judge(terms, s.limits, equity, s.tradingDays, consistent).kind !== 'none') suspects.push(s);
      else if (equity < s.limits.warnDaily || equity < s.limits.warnTotal) warnings.push(s);
    }
    const decided: number[] = [];
    await runLimited(suspects, async (state) => {
      const outcome = await this.guard(() =>
        evaluateAccount(this.ctx, state.account.number, {
          peakEquity: state.peakEquity,
          startOfDayBalance: state.sod ?? state.account.balance,
          startOfDayEquity: state.dayStart?.equity,
          highestEodBalance: state.dayStart?.highestEodBalance,
        }),
      );
      // Reloaded whatever the outcome: an unchanged verdict means this replica's view was stale.
      if (outcome) decided.push(state.account.number);
    });
    if (decided.length > 0) await this.reloadAccounts(decided);
    if (warnings.length > 0) await this.sendWarnings(warnings, day);
    for (const s of states) {
      if (s.positions.size === 0 && this.accounts.get(s.account.number) === s) {
        this.writer.retire(s);
        this.accounts.delete(s.account.number);
      }
    }
  }

  /**
   * account.warning for the accounts whose marks passed a warning level: once per rule and trading
   * day (daily) or attempt (total); what was sent is remembered here, the database decides.
   */
  private async sendWarnings(states: AccountState[], day: string): Promise<void> {
    await runLimited(states, async (s) => {
      const equity = s.equity;
      const due = warningsAt(s.account.terms, s.limits, equity, s.account.initialBalance).filter(
        (w) => !s.warned.has(warningKey(w.rule, day, s.account.attempt)),
      );
      if (due.length === 0) return;
      for (const w of due) s.warned.add(warningKey(w.rule, day, s.account.attempt));
      await this.guard(() => recordWarnings(this.ctx, s.account, due, equity, day));
    });
  }

  /** Re-reads accounts and their live positions after a change (ours or another replica's). */
  async reloadAccounts(numbers: number[]): Promise<void> {
    if (numbers.length === 0) return;
    await this.rebuildAccounts(numbers, await livePositionsOfAccounts(this.options.sequelize, numbers));
  }

  private async rebuildAccounts(numbers: number[], live: Position[]): Promise<void> {
    const accounts = new Map((await readAccounts(this.options.sequelize, numbers)).map((a) => [a.number, a]));
    const days = await tradingDaysOf(this.options.sequelize, numbers);
    const consistent = [...accounts.values()].filter((a) => a.status === 'active' && a.terms.consistencyPct !== null).map((a) => a.number);
    const dayProfits = await dailyProfitsOf(this.options.sequelize, consistent, this.options.rolloverHourUtc);
    const byAccount = new Map<number, Position[]>();
    for (const p of live) {
      const list = byAccount.get(p.accountNumber);
      if (list) list.push(p);
      else byAccount.set(p.accountNumber, [p]);
    }
    for (const n of numbers) {
      const previous = this.accounts.get(n);
      if (previous) for (const p of previous.positions.values()) this.bySymbol.get(p.symbol)?.delete(p.id);
      const account = accounts.get(n);
      const mine = byAccount.get(n) ?? [];
      // Accounts without live positions stay until evaluated once (a closing loss may breach), then evaluate() prunes them.
      if (!account || account.status !== 'active') {
        if (previous) this.writer.retire(previous);
        this.accounts.delete(n);
        continue;
      }
      const state = accountState(account, mine, days.get(n) ?? 0, previous);
      if (account.terms.consistencyPct !== null) state.dayProfits = dayProfits.get(n) ?? [];
      // A reset or payout moved the money: a mark of before it must not be written over it.
      if (previous && previous.account.attempt !== account.attempt) this.writer.forget(n);
      else if (previous && (previous.account.payoutAt?.getTime() ?? 0) !== (account.payoutAt?.getTime() ?? 0)) this.writer.forget(n);
      this.accounts.set(n, state);
      for (const p of mine) {
        let index = this.bySymbol.get(p.symbol);
        if (!index) this.bySymbol.set(p.symbol, (index = new Map()));
        index.set(p.id, p);
      }
    }
  }

  /** Start-of-day balance as the engine knows it (null before the account was first marked today). */
  startOfDayBalance(accountNumber: number): number | null {
    const s = this.accounts.get(accountNumber);
    return s && s.sodDay === tradingDayOf(this.ctx.now(), this.options.rolloverHourUtc) ? (s.sod ?? null) : null;
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      await this.flushQuotes();
      for (const q of await loadQuotes(this.options.sequelize)) {
        const cached = this.quotes.get(q.symbol);
        if (!cached || q.time.getTime() > cached.time.getTime()) this.quotes.set(q.symbol, q);
      }
      const changes = await recentlyChangedAccounts(this.options.sequelize, CHANGE_LOOKBACK_SECONDS);
      const reload = changes.filter((c) => (this.knownChanges.get(c.accountNumber) ?? 0) < c.changedAt.getTime());
      for (const c of reload) this.knownChanges.set(c.accountNumber, c.changedAt.getTime());
      if (this.knownChanges.size > 10_000) this.knownChanges.clear();
      await this.reloadAccounts(reload.map((c) => c.accountNumber));
      if (Date.now() - this.writer.lastFlush >= (this.options.equityFlushMs ?? 1000)) await this.writer.flush('none', this.accounts.values());
    } catch (err) {
      if (/closed/i.test(String((err as Error)?.message))) {
        // The pool was closed by the service's shutdown: nothing left to keep fresh.
        this.stopTimer();
      } else {
        this.options.logger.warn({ err }, 'trading engine tick failed');
      }
    } finally {
      this.ticking = false;
    }
  }

  private async flushQuotes(): Promise<void> {
    if (this.unsavedQuotes.size === 0) return;
    const batch = [...this.unsavedQuotes.values()];
    this.unsavedQuotes.clear();
    await upsertQuotes(this.options.sequelize, batch);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops the background tick and writes what is pending. Call before closing the pool. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    await this.loading?.catch(() => undefined);
    while (this.ticking || this.draining) await new Promise((r) => setTimeout(r, 10));
    try {
      await this.flushQuotes();
      await this.writer.flush('all', this.accounts.values());
    } catch (err) {
      this.options.logger.warn({ err }, 'final trading flush failed');
    }
  }
}
