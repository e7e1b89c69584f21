import { performance } from 'node:perf_hooks';
import { dateOf, systemClock, type Clock } from '../domain/clock';
import type { Quote } from '../domain/instruments';
import type { LiveEngine, TradingContext } from '../use-cases/trading-context';
import { AccountIndex } from './account-index';
import type { AccountState } from './account-state';
import { AccountTable } from './account-table';
import { actOnCrossings, nothingCrossed } from './crossings';
import { EquityWriter } from './equity-writer';
import { Marker } from './marker';
import { createEngineMetrics, type EngineMetrics } from './metrics';
import type { PositionBook } from './position-book';
import { QuoteCache } from './quote-cache';
import { QuoteQueue } from './quote-queue';
import { ReplicaShare } from './replica-share';
import type { TradingEngineOptions } from './trading-engine-options';
import { VerdictGate } from './verdict-gate';

/**
 * The per-replica trading engine, in parts: the quote queue (quote-queue.ts: every quote evaluated
 * on its own, in arrival order, with back-pressure), the marker (marker.ts: the hot path in typed
 * arrays, an account marked exactly only when its floating P/L leaves its band), the account index
 * (account-index.ts, with the day starts of day-starts.ts), the verdict gate (verdict-gate.ts: the
 * locked re-check of an account that crossed a threshold, warnings) and the replica share
 * (replica-share.ts: which accounts are this replica's). This file runs them: a quote marks its
 * symbol's positions, and only what crossed (a resting order triggered, a stop loss or take profit
 * hit, a limit crossed, a weekend flag due) takes a database round trip; marked equity is written in
 * batches (equity-writer.ts). A background tick stores streamed quotes and picks up what other
 * replicas changed. A replica may act on a stale view, but every decision runs in a transaction
 * that locks the account row and re-checks committed rows, so nothing happens twice.
 */
export class TradingEngine implements LiveEngine {
  readonly clock: Clock;
  readonly metrics: EngineMetrics;
  private readonly ctx: TradingContext;
  private readonly quotes: QuoteCache;
  private readonly books = new Map<string, PositionBook>();
  private readonly table = new AccountTable();
  private readonly writer: EquityWriter;
  private readonly marker: Marker;
  private readonly index: AccountIndex;
  private readonly gate: VerdictGate;
  private readonly replicas: ReplicaShare;
  private readonly feed: QuoteQueue;
  /** Aborted by stop(): the feed refuses quotes, the tick and rebalances do not begin again. */
  private readonly closing = new AbortController();
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  /** The tick in flight, and who waits for the next complete one (caughtUp). */
  private ticking?: Promise<void>;
  private tickWaiters: Array<() => void> = [];

  constructor(private readonly options: TradingEngineOptions) {
    const { sequelize, logger, rolloverHourUtc } = options;
    const { table, books } = this;
    const closed = this.closing.signal;
    const clock = (this.clock = options.clock ?? systemClock);
    const metrics = (this.metrics = createEngineMetrics(options.metricsRegistry));
    const clockId = options.testClock?.id ?? null;
    const quotes = (this.quotes = new QuoteCache(sequelize, clockId));
    this.ctx = { sequelize, logger, rolloverHourUtc, now: () => dateOf(clock), quote: (symbol) => quotes.get(symbol), lifecycle: options.lifecycle };
    const limits = { threshold: options.equityWriteThreshold ?? 1, maxAgeMs: options.equityMaxAgeMs ?? 15_000 };
    const writer = (this.writer = new EquityWriter(sequelize, logger, limits, table, () => this.gate.verdictsFirst(), clock));
    const marker = (this.marker = new Marker({ table, books, quotes: quotes.latest, sink: writer }));
    const owns = (n: number) => this.replicas.owns(n);
    this.index = new AccountIndex({ sequelize, rolloverHourUtc, clock, table, books, marker, writer, metrics, owns, clockId });
    this.gate = new VerdictGate({ ctx: this.ctx, pool: options.verdicts, table, accounts: this.index.accounts, metrics, logger, clock });
    this.replicas = new ReplicaShare({ cluster: options.cluster, sequelize, logger, index: this.index, ready: () => this.ready(), evaluate: (n) => this.evaluate(n), closed });
    this.feed = new QuoteQueue({ evaluate: (q, receivedAt) => this.processQuote(q, receivedAt), metrics, logger, lagWarnMs: options.lagWarnMs ?? 1000, closed });
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
    // A test clock's engine lives for one call: its prices now, its accounts as that call needs them.
    if (this.options.testClock) return this.quotes.load();
    await this.replicas.start((quote) => {
      // Another replica's quote: stored by that replica, evaluated here for this replica's accounts
      // (refused once this engine stops).
      this.quotes.taken(quote);
      void this.feed.enqueue(quote).catch(() => undefined);
    });
    await this.quotes.load();
    await this.index.loadAll();
    await this.gate.rehearse();
    if (this.closing.signal.aborted) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 250);
    // The engine never keeps a process alive on its own: main's stop() closes the pool.
    this.timer.unref();
  }

  async context(): Promise<TradingContext> {
    await this.ready();
    return this.ctx;
  }

  /** Reads the stored latest quote of a symbol, so an order priced here sees quotes other replicas received. */
  async refreshQuote(symbol: string): Promise<Quote | undefined> {
    await this.pickUp(symbol);
    return this.quotes.get(symbol);
  }

  /**
   * Other replicas' stored quotes become this replica's prices; one it never received (its
   * fan-out lost) is evaluated like any other, so its breaches are found by the next tick.
   */
  private async pickUp(symbol?: string): Promise<void> {
    for (const quote of await this.quotes.pickUp(symbol)) void this.feed.enqueue(quote).catch(() => undefined);
  }

  /**
   * A unary quote (PublishQuote, the CLI): stored at once, evaluated before the promise resolves,
   * for every account holding the symbol: the other replicas' accounts are loaded for it and let go after.
   */
  async publishQuote(quote: Quote): Promise<void> {
    await this.ready();
    await this.quotes.store(quote);
    this.replicas.publish(quote);
    const guests = this.options.testClock ? await this.index.loadHolders(quote.symbol) : await this.replicas.visit(quote.symbol);
    await this.feed.enqueue(quote);
    this.replicas.leave(guests);
    // A unary quote is rare (CLI, tests) and its caller reads the account next: write the marks now.
    await this.flushMarks('marks');
  }

  /** After an order, close or breach through the API: refresh the index and evaluate that account at once (another replica's account only for this call). */
  async afterAccountChange(accountNumber: number): Promise<void> {
    await this.ready();
    await this.index.reload([accountNumber], true);
    await this.evaluate([accountNumber]);
    this.replicas.leave([accountNumber]);
    // The caller reads the account next (a fill's spread already shows in its equity).
    await this.flushMarks('marks');
  }

  /** A streamed quote: stored by the next tick, evaluated on its own and in order; resolves once evaluated. */
  async streamQuote(quote: Quote): Promise<void> {
    await this.ready();
    this.quotes.storeLater(quote);
    this.replicas.publish(quote);
    await this.feed.enqueue(quote);
  }

  feedBacklog(): number {
    return this.feed.backlog();
  }

  backlogBelow(below: number): Promise<void> {
    return this.feed.backlogBelow(below);
  }

  /** One quote from the queue: its symbol's positions marked (marker.ts), then what crossed, in the database. */
  private async processQuote(quote: Quote, receivedAt: number): Promise<void> {
    this.quotes.set(quote);
    const book = this.books.get(quote.symbol);
    if (!book || (book.size === 0 && book.pending.size === 0)) return;
    const now = dateOf(this.clock);
    await this.index.days.ensure(now);
    const marks = this.marker.markBook(book, quote, now.getTime());
    this.metrics.marks.inc(marks.marked);
    this.metrics.exactMarks.inc(marks.exact);
    // What crossed: exact checks (domain/orders), then the database, batched per quote.
    const crossings = this.marker.crossingsOf(book, quote, marks);
    if (nothingCrossed(crossings) && marks.suspects.length === 0) return;
    const suspects = marks.suspects.map((slot) => (this.table.states[slot] as AccountState).account.number);
    const changed = await actOnCrossings(this.ctx, crossings);
    if (changed.length > 0) await this.index.reload(changed);
    await this.evaluate([...new Set([...suspects, ...changed])], receivedAt);
  }

  /**
   * Marks the accounts at the cached quotes, records their equity for the batched flush, and
   * hands the ones whose marks crossed a threshold to the verdict gate (a locked re-check on
   * committed rows); decided ones are reloaded. `receivedAt`: performance.now() at the quote's arrival.
   */
  async evaluate(numbers: number[], receivedAt = performance.now()): Promise<void> {
    const now = dateOf(this.clock);
    const { days, accounts } = this.index;
    await days.ensure(now);
    const minute = Math.floor(now.getTime() / 60_000) * 60_000;
    const indexed = () => numbers.map((n) => accounts.get(n)).filter((s): s is AccountState => s !== undefined);
    let states = indexed();
    // Never judged without the day's start (a state indexed by a rebuild still reading it); the
    // states are taken again after that read, so none dropped meanwhile (its slot reused) is marked.
    if (states.some((s) => s.sodDay !== s.calendar.dayOf(now))) {
      await days.start(states, now);
      states = indexed();
    }
    const { suspects, warnings } = this.gate.sort(
      states.filter((s) => this.marker.markAccount(s, minute)),
      now,
    );
    const decided = await this.gate.judge(suspects, receivedAt);
    if (decided.length > 0) await this.index.reload(decided);
    if (warnings.length > 0) await this.gate.warn(warnings, now);
    for (const s of states) {
      if (s.positions.size === 0 && accounts.get(s.account.number) === s) this.index.drop(s);
    }
  }

  /** Start-of-day balance as the engine knows it (null before the account was first marked today). */
  startOfDayBalance(accountNumber: number): number | null {
    const s = this.index.accounts.get(accountNumber);
    return s && s.sodDay === s.calendar.dayOf(dateOf(this.clock)) ? (s.sod ?? null) : null;
  }

  /**
   * Resolves once this replica's view holds every change committed before the call: after its next
   * complete tick (at once before its first load, which reads everything, and once stopped).
   */
  caughtUp(): Promise<void> {
    if (!this.loading || this.closing.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.tickWaiters.push(resolve));
  }

  /** Resolves once every quote taken so far is evaluated and fanned out, and no rebalance runs. */
  async settled(): Promise<void> {
    await this.feed.drained();
    await this.replicas.settled();
  }

  /** Replicas in this replica's current membership, itself included. */
  replicaCount(): number {
    return this.replicas.size();
  }

  private tick(): Promise<void> {
    if (this.ticking || this.closing.signal.aborted) return this.ticking ?? Promise.resolve();
    const waiting = this.tickWaiters.splice(0);
    this.ticking = this.refresh().finally(() => {
      this.ticking = undefined;
      for (const resolve of waiting) resolve();
    });
    return this.ticking;
  }

  /** The background tick: streamed quotes stored, other replicas' quotes and changes picked up, failed verdicts tried again, verdict connections rehearsed, marks flushed. */
  private async refresh(): Promise<void> {
    try {
      await this.quotes.flush();
      await this.pickUp();
      await this.index.catchUp();
      const again = this.gate.dueAgain();
      if (again.length > 0) await this.evaluate(again);
      // Not while a verdict runs: the rehearsals take every verdict connection for a few milliseconds.
      if (!this.gate.busy()) await this.gate.rehearse();
      if (this.clock.now() - this.writer.lastFlush >= (this.options.equityFlushMs ?? 1000)) await this.flushMarks('none');
    } catch (err) {
      // A tick cut short by stop() has nothing to report: the final flush follows.
      if (!this.closing.signal.aborted) this.options.logger.warn({ err }, 'trading engine tick failed');
    }
  }

  /** Writes marks (settled first), buckets and drawdowns: equity-writer.ts flush. */
  private async flushMarks(force: 'none' | 'marks' | 'all'): Promise<void> {
    this.marker.settle();
    await this.writer.flush(force);
  }

  /** Stops taking quotes and ticking, waits for the work under way, and writes what is pending. Call before closing the pool. */
  async stop(): Promise<void> {
    this.closing.abort();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.loading?.catch(() => undefined);
    await this.ticking;
    await this.settled();
    for (const resolve of this.tickWaiters.splice(0)) resolve();
    try {
      await this.quotes.flush();
      await this.flushMarks('all');
    } catch (err) {
      this.options.logger.warn({ err }, 'final trading flush failed');
    }
    // The lease last: the others take this replica's accounts once its marks are written.
    await this.replicas.stop();
  }
}
