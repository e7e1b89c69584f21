import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { AppError, type Logger, type Sequelize } from '@propdesk/kit';
import type { Registry } from 'prom-client';
import { readAccounts, type PhaseLifecycle } from '../core-port';
import { startOfDayBalances, type DayStart } from '../data/account-days';
import { dailyProfitsOf, withToday } from '../data/daily-profits';
import { allLivePositions, livePositionsOfAccounts, recentlyChangedAccounts, tradingDaysOf, type Position } from '../data/positions';
import { liveAccountNumbers } from '../data/engine-leases';
import { loadQuotes, upsertQuotes } from '../data/quotes';
import { nextWeekendStart, tradingDayOf, tradingDayStart } from '../domain/calendar';
import { dateOf, systemClock, type Clock } from '../domain/clock';
import { mid, roundMoney, type Quote } from '../domain/instruments';
import { pendingTriggers, protectiveExit } from '../domain/orders';
import { consistencyHolds, followPeak, thresholdsMoveWith, warningsAt } from '../domain/rules';
import { exitPosition } from '../use-cases/close-position';
import { evaluateAccount } from '../use-cases/evaluate-account';
import { rehearseBreach } from '../use-cases/rehearse-breach';
import { fillPendingOrder } from '../use-cases/fill-pending-order';
import { flagWeekendHolding } from '../use-cases/flag-weekend-holding';
import { recordWarnings, warningKey } from '../use-cases/record-warnings';
import type { LiveEngine, TradingContext } from '../use-cases/trading-context';
import { accountState, sameMoney, startDay, storeThresholds, type AccountState } from './account-state';
import { AccountTable, BALANCE, BREACH_BELOW, DRAWDOWN, EQUITY, HIGH, LOW, MINUTE, PASS_AT_OR_ABOVE, PEAK, STRIDE, TRAILING, W_FLOATING, W_HIGH, W_LOW, W_STAMP, WARN_BELOW, WSTRIDE } from './account-table';
import type { EngineCluster } from './cluster';
import { EquityWriter } from './equity-writer';
import { guarded, inLanes } from './lanes';
import { createEngineMetrics, type EngineMetrics } from './metrics';
import { PositionBook } from './position-book';

export interface TradingEngineOptions {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  /** The time the engine and the use cases it runs decide by (default: the wall clock). */
  clock?: Clock;
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
  /** A feed quote waiting longer than this is reported (log and the lag metric) (default 1000 ms). */
  lagWarnMs?: number;
  /**
   * Replicas splitting the work (engine/cluster.ts): this engine indexes and evaluates only the
   * accounts it owns, and receives every quote the other replicas receive. Without one, it owns all.
   */
  cluster?: EngineCluster;
  /** Where the engine's metrics go (the service's /metrics registry); default: a registry of its own. */
  metricsRegistry?: Registry;
  /**
   * A small pool of its own for the verdict transactions (evaluate-account.ts), which keeps its
   * `connections` open (min = max): a breach never waits behind the equity writer, a rebuild or an
   * order for a connection, and each connection rehearses a breach once the index holds accounts
   * (rehearse-breach.ts), so no verdict pays for a new backend's cold caches. Without it, verdicts
   * use `sequelize`.
   */
  verdicts?: { sequelize: Sequelize; connections: number };
}

/** A quote offered to an engine that has stopped: it is not taken (the caller may retry on another replica). */
export class EngineClosedError extends AppError {
  constructor() {
    super('unavailable', 'the trading engine is stopping');
    this.name = 'EngineClosedError';
  }
}

interface QueuedQuote {
  quote: Quote;
  /** performance.now() at arrival: what the lag and the verdict latency are measured from. */
  receivedAt: number;
  resolve: () => void;
}

const CHANGE_LOOKBACK_SECONDS = 10;
/** Synchronous marking work between two yields to the event loop (so the feed's socket and other RPCs are served). */
const SLICE_MS = 8;
const SOD_CHUNK = 5000;
/** Longest the equity writer holds a statement for running verdicts. */
const VERDICT_WAIT_MS = 200;
/** A failed rehearsal of the verdict connections is tried again after this long. */
const REHEARSAL_RETRY_MS = 5000;
/** How far inside its thresholds an account's band ends (USD): equity is judged rounded to the cent. */
const BAND_MARGIN = 0.02;

/**
 * The per-replica trading engine: a quote cache and an index symbol -> live positions, so a
 * quote touches only the positions of its symbol and the accounts holding them. The hot path
 * is in memory, in typed arrays (PositionBook per symbol, AccountTable per account): every quote
 * is evaluated on its own, in arrival order (none is merged into a later one), and marks every
 * position of its symbol, summing the change into its account; an account is marked exactly
 * (equity, peak, the minute's bucket, its thresholds: domain/rules.ts thresholdsOf) only when its
 * sum leaves the band inside which none of those can move (account-table.ts watch), and only an
 * account that crossed a threshold takes a database round trip. The
 * database is touched only when something crosses (a resting order triggers, a stop loss or take
 * profit is hit, a limit is crossed, a weekend flag is due) and by the batched flushes of marked
 * equity and per-minute equity history.
 *
 * Replicas split the work by account (with a cluster, engine/cluster.ts): the live leases are the
 * membership, accounts are hashed over it, and each replica indexes and evaluates only its own
 * accounts' positions (about 1/n of the index each). A quote reaching any replica is fanned out to
 * all; a unary quote is also evaluated, before it is answered, for the other replicas' accounts
 * holding its symbol (loaded for that quote only). When the membership changes, a replica drops
 * the accounts it no longer owns and loads and evaluates at once the ones it gained. The index is
 * loaded on first use, updated at once for this replica's transactions, and refreshed every tick
 * from positions changed recently on any replica. A replica may therefore act on a stale view
 * (and two may briefly both own an account), but every decision (fill, exit, breach, pass) runs in
 * a transaction that locks the account row and re-checks against committed rows, so two replicas
 * never double-fill, double-close or double-breach; the loser finds nothing to do.
 */
export class TradingEngine implements LiveEngine {
  readonly clock: Clock;
  private readonly ctx: TradingContext;
  /** ctx on the verdict pool (options.verdicts), or ctx itself. */
  private readonly verdictCtx: TradingContext;
  /** Connections the verdict pool has opened, how many of them the last rehearsal left warm (-1: none yet), and when a failed one is tried again (rehearseVerdicts). */
  private readonly verdictConnections = { opened: 0, rehearsed: -1, retryAt: 0 };
  private readonly quotes = new Map<string, Quote>();
  private readonly books = new Map<string, PositionBook>();
  private readonly table = new AccountTable();
  private readonly accounts = new Map<number, AccountState>();
  private readonly knownChanges = new Map<number, number>();
  /** Quotes waiting for evaluation, oldest first (from `queueHead`). */
  private queue: QueuedQuote[] = [];
  private queueHead = 0;
  private readonly backlogWaiters: Array<{ below: number; resolve: () => void }> = [];
  private readonly unsavedQuotes = new Map<string, Quote>();
  private readonly writer: EquityWriter;
  readonly metrics: EngineMetrics;
  private quoteSeq = 0;
  private crossed = new Int32Array(1024);
  /** Verdict transactions running, and what resolves when none does (verdictStarted, verdictsFirst). */
  private readonly verdicts: { running: number; quiet?: { promise: Promise<void>; resolve: () => void } } = { running: 0 };
  /** Rebuilds in the order they began reading, and the last one applied to each account (rebuildAccounts). */
  private rebuildTicket = 0;
  private readonly appliedTicket = new Map<number, number>();
  /** The minute the accounts' open equity buckets are of (markSlot rolls it). */
  private openMinute = NaN;
  private day?: string;
  private lastLagWarning = -Infinity;
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private draining = false;
  /** The running drain, or the last one: what stop() awaits. */
  private drainRun: Promise<void> = Promise.resolve();
  /** The tick in flight: what stop() awaits. */
  private ticking?: Promise<void>;
  /** Aborted by stop(): quotes are refused, the tick and rebalances do not begin again. */
  private readonly closing = new AbortController();

  constructor(private readonly options: TradingEngineOptions) {
    const clock = (this.clock = options.clock ?? systemClock);
    this.metrics = createEngineMetrics(options.metricsRegistry);
    this.writer = new EquityWriter(
      options.sequelize,
      options.logger,
      { threshold: options.equityWriteThreshold ?? 1, maxAgeMs: options.equityMaxAgeMs ?? 15_000 },
      this.table,
      () => this.verdictsFirst(),
      clock,
    );
    this.ctx = {
      sequelize: options.sequelize,
      logger: options.logger,
      rolloverHourUtc: options.rolloverHourUtc,
      now: () => dateOf(clock),
      quote: (symbol) => this.quotes.get(symbol),
      lifecycle: options.lifecycle,
    };
    this.verdictCtx = options.verdicts ? { ...this.ctx, sequelize: options.verdicts.sequelize } : this.ctx;
    // The pool reopens a connection it lost (a restarted database, a terminated backend) on its
    // own; each one opened outside a rehearsal is cold until rehearsed again.
    options.verdicts?.sequelize.addHook('afterConnect', () => {
      this.verdictConnections.opened += 1;
    });
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

  private owns(accountNumber: number): boolean {
    return this.options.cluster?.owns(accountNumber) ?? true;
  }

  private async load(): Promise<void> {
    await this.options.cluster?.start({
      onMembership: () => void this.rebalance(),
      // Another replica's quote: stored by that replica, evaluated here for this replica's accounts.
      onQuote: (quote) => {
        if (!this.closing.signal.aborted) void this.enqueue(quote);
      },
    });
    for (const q of await loadQuotes(this.options.sequelize)) this.quotes.set(q.symbol, q);
    const ticket = ++this.rebuildTicket;
    const live = (await allLivePositions(this.options.sequelize)).filter((p) => this.owns(p.accountNumber));
    const numbers = [...new Set(live.map((p) => p.accountNumber))];
    await this.rebuildAccounts(numbers, live, ticket);
    await this.rehearseVerdicts();
    if (!this.closing.signal.aborted) {
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

  /**
   * A unary quote (PublishQuote, the CLI): stored at once, evaluated before the promise resolves,
   * for every account holding the symbol: the other replicas' accounts are loaded for it and let go after.
   */
  async publishQuote(quote: Quote): Promise<void> {
    await this.ready();
    await upsertQuotes(this.options.sequelize, [quote]);
    this.options.cluster?.publish(quote);
    const guests = await this.visit(quote.symbol);
    await this.enqueue(quote);
    this.leave(guests);
    // A unary quote is rare (CLI, tests) and its caller reads the account next: write the marks now.
    await this.flushMarks('marks');
  }

  /** Loads the accounts of other replicas holding `symbol` (none without a cluster of several). */
  private async visit(symbol: string): Promise<number[]> {
    if (!this.options.cluster || this.options.cluster.size() < 2) return [];
    const guests = (await liveAccountNumbers(this.options.sequelize, symbol)).filter((n) => !this.owns(n) && !this.accounts.has(n));
    await this.reloadAccounts(guests, true);
    return guests;
  }

  private leave(numbers: number[]): void {
    for (const n of numbers) {
      const s = this.accounts.get(n);
      if (s && !this.owns(n)) this.drop(s);
    }
  }

  /** After an order, close or breach through the API: refresh the index and evaluate that account at once (another replica's account only for this call). */
  async afterAccountChange(accountNumber: number): Promise<void> {
    await this.reloadAccounts([accountNumber], true);
    await this.evaluate([accountNumber]);
    this.leave([accountNumber]);
    // The caller reads the account next (a fill's spread already shows in its equity).
    await this.flushMarks('marks');
  }

  /** A streamed quote: stored by the next tick, evaluated on its own and in order; resolves once evaluated. */
  async streamQuote(quote: Quote): Promise<void> {
    await this.ready();
    this.unsavedQuotes.set(quote.symbol, quote);
    this.options.cluster?.publish(quote);
    await this.enqueue(quote);
  }

  /**
   * The membership changed: drop the accounts this replica no longer owns, load the ones it gained
   * and evaluate them at once at the cached quotes (a breach that happened while nobody owned them
   * is found now). One rebalance at a time; a change during one runs another after it.
   */
  private rebalancing?: Promise<void>;
  private rebalanceAgain = false;

  private rebalance(): Promise<void> {
    // A replica that is stopping takes nothing more: the others take its accounts once it has left.
    if (this.closing.signal.aborted) return this.rebalancing ?? Promise.resolve();
    if (this.rebalancing) {
      this.rebalanceAgain = true;
      return this.rebalancing;
    }
    this.rebalancing = (async () => {
      do {
        this.rebalanceAgain = false;
        try {
          await this.ready();
          for (const s of [...this.accounts.values()]) if (!this.owns(s.account.number)) this.drop(s);
          const gained = (await liveAccountNumbers(this.options.sequelize)).filter((n) => this.owns(n) && !this.accounts.has(n));
          for (let i = 0; i < gained.length; i += SOD_CHUNK) {
            const chunk = gained.slice(i, i + SOD_CHUNK);
            await this.reloadAccounts(chunk);
            await this.evaluate(chunk);
          }
          this.options.logger.info({ accounts: this.accounts.size, gained: gained.length }, 'trading engine took its share of accounts');
        } catch (err) {
          this.options.logger.error({ err }, 'trading engine rebalance failed');
        }
      } while (this.rebalanceAgain && !this.closing.signal.aborted);
      this.rebalancing = undefined;
    })();
    return this.rebalancing;
  }

  /** Quotes received and not yet evaluated. */
  feedBacklog(): number {
    return this.queue.length - this.queueHead;
  }

  /** Resolves once fewer than `below` quotes wait (the feed resumes reading then). */
  backlogBelow(below: number): Promise<void> {
    if (this.feedBacklog() < below) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push({ below, resolve }));
  }

  /** Takes a quote for evaluation in turn; resolves once it was evaluated. Refused once the engine stopped. */
  private enqueue(quote: Quote): Promise<void> {
    if (this.closing.signal.aborted) return Promise.reject(new EngineClosedError());
    this.metrics.received.inc();
    return new Promise<void>((resolve) => {
      this.queue.push({ quote, receivedAt: performance.now(), resolve });
      this.metrics.backlog.set(this.feedBacklog());
      if (!this.draining) {
        this.draining = true;
        this.drainRun = this.drain();
      }
    });
  }

  /** Resolves once every quote taken so far is evaluated (a drain that starts meanwhile is awaited too). */
  private async drained(): Promise<void> {
    while (this.draining) await this.drainRun;
  }

  private async drain(): Promise<void> {
    try {
      let sliceStart = performance.now();
      while (this.queueHead < this.queue.length) {
        const queued = this.queue[this.queueHead];
        this.queue[this.queueHead++] = undefined as unknown as QueuedQuote;
        if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.queueHead);
          this.queueHead = 0;
        }
        this.reportLag(queued.receivedAt);
        try {
          this.metrics.evaluated.inc();
          await this.processQuote(queued.quote, queued.receivedAt);
        } catch (err) {
          this.options.logger.error({ err, symbol: queued.quote.symbol }, 'quote evaluation failed');
        }
        queued.resolve();
        this.releaseBacklogWaiters();
        if (performance.now() - sliceStart >= SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
    } finally {
      this.draining = false;
      this.metrics.backlog.set(0);
      this.metrics.lag.set(0);
      this.releaseBacklogWaiters();
    }
  }

  private releaseBacklogWaiters(): void {
    if (this.backlogWaiters.length === 0) return;
    const backlog = this.feedBacklog();
    for (let i = this.backlogWaiters.length - 1; i >= 0; i--) {
      if (backlog < this.backlogWaiters[i].below) {
        this.backlogWaiters[i].resolve();
        this.backlogWaiters.splice(i, 1);
      }
    }
  }

  /** The lag metric, and a warning (at most every 10 s) when this replica falls behind its feed. */
  private reportLag(receivedAt: number): void {
    const now = performance.now();
    const lagMs = now - receivedAt;
    this.metrics.lag.set(lagMs / 1000);
    this.metrics.backlog.set(this.feedBacklog());
    if (lagMs >= (this.options.lagWarnMs ?? 1000) && now - this.lastLagWarning >= 10_000) {
      this.lastLagWarning = now;
      this.options.logger.warn({ lagMs, backlog: this.feedBacklog() }, 'trading engine is behind its quote feed');
    }
  }

  /** The trading day of `now`; on a new one, every indexed account's start of day is read (batched) first. */
  private async ensureDay(now: Date): Promise<string> {
    const day = tradingDayOf(now, this.options.rolloverHourUtc);
    if (day !== this.day) {
      await this.startDays([...this.accounts.values()], now, day);
      this.day = day;
    }
    return day;
  }

  private async startDays(states: AccountState[], now: Date, day: string): Promise<void> {
    const stale = states.filter((s) => s.sodDay !== day);
    for (let i = 0; i < stale.length; i += SOD_CHUNK) {
      const chunk = stale.slice(i, i + SOD_CHUNK);
      const sods = await this.readDayStarts(chunk.map((s) => s.account.number), now, day);
      for (const s of chunk) {
        const balance = s.account.balance;
        startDay(s, day, sods.get(s.account.number) ?? { balance, equity: balance, highestEodBalance: balance }, this.table.get(s.slot, PEAK));
        if (this.accounts.get(s.account.number) === s) storeThresholds(s, this.table);
      }
    }
  }

  private readDayStarts(numbers: number[], now: Date, day: string): Promise<Map<number, DayStart>> {
    return startOfDayBalances(this.options.sequelize, numbers, day, tradingDayStart(now, this.options.rolloverHourUtc));
  }

  /** The divisor taking the quote currency of `book` to USD at the cached quotes (domain/instruments toUsd). */
  private rateOf(book: PositionBook): number {
    if (book.instrument.quoteCurrency === 'USD' || book.ownRate) return 1;
    const q = this.quotes.get('USDJPY');
    const rate = q ? mid(q) : NaN;
    if (!(rate > 0)) throw new Error('no USDJPY quote to convert JPY to USD yet');
    return rate;
  }

  private async processQuote(quote: Quote, receivedAt: number): Promise<void> {
    this.quotes.set(quote.symbol, quote);
    const book = this.books.get(quote.symbol);
    if (!book || (book.size === 0 && book.pending.size === 0)) return;
    const now = dateOf(this.clock);
    await this.ensureDay(now);
    const nowMs = now.getTime();
    const minute = Math.floor(nowMs / 60_000) * 60_000;
    const fills: Position[] = [];
    for (const p of book.pending.values()) {
      if (p.price !== null && pendingTriggers({ side: p.side, type: p.type, price: p.price }, quote)) fills.push(p);
    }
    // The hot loop: typed arrays only, the positions in order and their accounts' dense band
    // (account-table.ts watch). Marks every position and sums the change into its account; only an
    // account whose sum left its band is marked exactly, after the loop.
    const t = this.table;
    if (minute !== this.openMinute) this.rollMinute(minute);
    const seq = ++this.quoteSeq;
    const { bid, ask } = quote;
    const rate = this.rateOf(book);
    if (this.crossed.length < book.size) this.crossed = new Int32Array(book.size * 2);
    const crossed = this.crossed;
    let crossedCount = 0;
    let exitCandidates: number[] | undefined;
    const n = book.size;
    // Locals, so the loop reads registers and typed arrays only (the profit is domain/pnl.ts rawProfit, as PositionBook.profitAt).
    const { slot: slots, sign, open, volume, floating, exitBelow, exitAbove, weekendAt } = book;
    const withExits = book.exits > 0;
    const contractSize = book.instrument.contractSize;
    const ownRate = book.ownRate;
    const watch = t.watch;
    for (let i = 0; i < n; i++) {
      const side = sign[i];
      const price = side > 0 ? bid : ask;
      const inQuote = (price - open[i]) * volume[i] * contractSize * side;
      const f = ownRate ? inQuote / price : rate === 1 ? inQuote : inQuote / rate;
      const slot = slots[i];
      const w = slot * WSTRIDE;
      const sum = watch[w + W_FLOATING] + (f - floating[i]);
      watch[w + W_FLOATING] = sum;
      floating[i] = f;
      if ((sum < watch[w + W_LOW] || sum > watch[w + W_HIGH]) && watch[w + W_STAMP] !== seq) {
        watch[w + W_STAMP] = seq;
        crossed[crossedCount++] = slot;
      }
      if (withExits && (price <= exitBelow[i] || price >= exitAbove[i])) (exitCandidates ??= []).push(i);
    }
    const weekendCandidates = nowMs >= book.weekendFrom ? book.weekendDue(nowMs) : undefined;
    this.metrics.marks.inc(n);
    this.metrics.exactMarks.inc(crossedCount);
    const suspects: number[] = [];
    for (let k = 0; k < crossedCount; k++) {
      const slot = crossed[k];
      if (this.markSlot(slot, minute)) suspects.push(slot);
    }
    // What crossed: exact checks (domain/orders), then the database, batched per quote.
    const exits: Array<{ position: Position; reason: 'stop_loss' | 'take_profit'; price: number }> = [];
    for (const i of exitCandidates ?? []) {
      const p = t.states[slots[i]]?.positions.get(book.ids[i]);
      const exit = p && protectiveExit(p, quote);
      if (p && exit) exits.push({ position: p, ...exit });
    }
    const weekend: Position[] = [];
    for (const i of weekendCandidates ?? []) {
      weekendAt[i] = Infinity;
      const s = t.states[slots[i]];
      const p = s?.positions.get(book.ids[i]);
      if (s && p && !s.weekendChecked.has(p.id)) {
        s.weekendChecked.add(p.id);
        weekend.push(p);
      }
    }
    const suspectNumbers = suspects.map((slot) => (t.states[slot] as AccountState).account.number);
    if (fills.length === 0 && exits.length === 0 && weekend.length === 0 && suspects.length === 0) return;
    const changed = new Set<number>();
    await inLanes(fills, async (p) => {
      if (await guarded(this.options.logger, () => fillPendingOrder(this.ctx, p.accountNumber, p.id, p.price as number))) changed.add(p.accountNumber);
    });
    await inLanes(exits, async (e) => {
      const closed = await guarded(this.options.logger, () => exitPosition(this.ctx, { accountNumber: e.position.accountNumber, positionId: e.position.id, reason: e.reason, price: e.price }));
      if (closed) changed.add(e.position.accountNumber);
    });
    await inLanes(weekend, async (p) => {
      if (p.openedAt) await guarded(this.options.logger, () => flagWeekendHolding(this.ctx, { ...p, openedAt: p.openedAt as Date }));
    });
    if (changed.size > 0) await this.reloadAccounts([...changed]);
    await this.evaluate([...new Set([...suspectNumbers, ...changed])], receivedAt);
  }

  /**
   * Marks the account in `slot` exactly at its summed floating P/L: equity, peak (a trailing limit
   * moves with it), the writer's bucket, then its band (account-table.ts watch). True when a
   * threshold is crossed (a verdict may be due).
   */
  private markSlot(slot: number, minute: number): boolean {
    if (minute !== this.openMinute) this.rollMinute(minute);
    return this.markExactly(slot, minute);
  }

  private markExactly(slot: number, minute: number): boolean {
    const t = this.table;
    const h = t.hot;
    const o = slot * STRIDE;
    const balance = h[o + BALANCE];
    const equity = roundMoney(balance + t.floating(slot));
    if (equity > h[o + PEAK]) {
      h[o + PEAK] = equity;
      if (h[o + TRAILING] !== 0) this.movePeak(slot, equity);
    }
    this.writer.mark(slot, equity, minute);
    // The band: no threshold, peak, drawdown or minute high/low can move while the sum stays inside.
    const low = Math.max(h[o + BREACH_BELOW], h[o + WARN_BELOW], h[o + LOW], h[o + PEAK] - h[o + DRAWDOWN]);
    const high = Math.min(h[o + PASS_AT_OR_ABOVE], h[o + HIGH], h[o + PEAK]);
    const w = slot * WSTRIDE;
    const watch = t.watch;
    watch[w + W_LOW] = low - balance + BAND_MARGIN;
    watch[w + W_HIGH] = high - balance - BAND_MARGIN;
    // An empty band (or one not computable) marks the account exactly at every quote.
    if (!(watch[w + W_LOW] <= watch[w + W_HIGH])) t.unwatch(slot);
    return equity < h[o + BREACH_BELOW] || equity >= h[o + PASS_AT_OR_ABOVE] || equity < h[o + WARN_BELOW];
  }

  /**
   * Brings the last exact marks of the accounts marked this minute up to their sums (their
   * equity and the minute's close may have moved inside their bands since): before the marks are
   * written and before the minute's buckets close. Accounts not marked this minute have not moved
   * since their last exact mark (every band is emptied when a minute begins).
   */
  private settle(): void {
    const t = this.table;
    for (let slot = 0; slot < t.end; slot++) if (t.states[slot] !== undefined) this.settleSlot(slot);
  }

  private settleSlot(slot: number): void {
    const h = this.table.hot;
    const o = slot * STRIDE;
    if (h[o + MINUTE] !== this.openMinute) return;
    if (roundMoney(h[o + BALANCE] + this.table.floating(slot)) !== h[o + EQUITY]) this.markExactly(slot, this.openMinute);
  }

  /** A new minute: the open buckets get their exact close, and every account is marked exactly at its next quote (so its bucket opens). */
  private rollMinute(minute: number): void {
    this.settle();
    this.table.unwatchAll();
    this.openMinute = minute;
  }

  /** A verdict begins; the returned function ends it. While any runs, the equity writer holds its next statement. */
  private verdictStarted(): () => void {
    this.verdicts.running += 1;
    if (!this.verdicts.quiet) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.verdicts.quiet = { promise, resolve };
    }
    return () => {
      this.verdicts.running -= 1;
      if (this.verdicts.running > 0) return;
      this.verdicts.quiet?.resolve();
      this.verdicts.quiet = undefined;
    };
  }

  /**
   * Once the index holds accounts, and again whenever the verdict pool has opened a connection
   * since: a breach rehearsed and rolled back on every connection of the pool, all at once so that
   * each takes its own (rehearse-breach.ts). Connections the rehearsals open are theirs, so it
   * does not repeat itself; one that fails is tried again after REHEARSAL_RETRY_MS.
   */
  private async rehearseVerdicts(): Promise<void> {
    const pool = this.options.verdicts;
    const seen = this.verdictConnections;
    if (!pool || this.accounts.size === 0 || seen.opened === seen.rehearsed || this.clock.now() < seen.retryAt) return;
    const started = performance.now();
    const held: number[] = [];
    for (const n of this.accounts.keys()) if (held.push(n) === pool.connections) break;
    const numbers = Array.from({ length: pool.connections }, (_, i) => held[i % held.length]);
    const failed = (await Promise.allSettled(numbers.map((n) => rehearseBreach(this.verdictCtx, n)))).find((r) => r.status === 'rejected');
    if (failed) {
      seen.retryAt = this.clock.now() + REHEARSAL_RETRY_MS;
      this.options.logger.warn({ err: failed.reason }, 'rehearsing the verdict connections failed; trying again shortly');
      return;
    }
    seen.rehearsed = seen.opened;
    this.metrics.rehearsals.inc(pool.connections);
    this.options.logger.debug({ connections: pool.connections, ms: performance.now() - started }, 'verdict connections rehearsed');
  }

  /** Resolves when no verdict runs, or after VERDICT_WAIT_MS (marks are bounded in age, not starved by a run of breaches). */
  private async verdictsFirst(): Promise<void> {
    const quiet = this.verdicts.quiet;
    if (!quiet) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([quiet.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, VERDICT_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Writes marks (settled first), buckets and drawdowns: equity-writer.ts flush. */
  private async flushMarks(force: 'none' | 'marks' | 'all'): Promise<void> {
    this.settle();
    await this.writer.flush(force);
  }

  /** A trailing floor (and its warning level) moves only when the peak does. */
  private movePeak(slot: number, peakEquity: number): void {
    const s = this.table.states[slot] as AccountState;
    followPeak(s.account.terms, s.limits, s.account.initialBalance, peakEquity);
    storeThresholds(s, this.table);
  }

  /** Recomputes an indexed account's floating P/L from its positions at the cached quotes (exact, no running sum). */
  private remark(s: AccountState): void {
    let floating = 0;
    for (const p of s.positions.values()) {
      if (p.status !== 'open') continue;
      const book = this.books.get(p.symbol);
      const i = book?.index.get(p.id);
      if (!book || i === undefined) continue;
      const quote = this.quotes.get(p.symbol);
      const f = quote ? book.profitAt(i, book.sign[i] > 0 ? quote.bid : quote.ask, this.rateOf(book)) : 0;
      book.floating[i] = f;
      floating += f;
    }
    this.table.setFloating(s.slot, floating);
  }

  /**
   * Marks the accounts at the cached quotes, records their equity for the batched flush, and
   * hands the ones whose marks crossed a threshold to a locked re-check (evaluate-account.ts,
   * which judges again on committed rows); decided ones are reloaded. `receivedAt`: performance.now()
   * at the arrival of the quote that marked them.
   */
  async evaluate(numbers: number[], receivedAt = performance.now()): Promise<void> {
    const now = dateOf(this.clock);
    await this.ensureDay(now);
    const minute = Math.floor(now.getTime() / 60_000) * 60_000;
    const day = tradingDayOf(now, this.options.rolloverHourUtc);
    const indexed = () => numbers.map((n) => this.accounts.get(n)).filter((s): s is AccountState => s !== undefined);
    let states = indexed();
    // Never judged without the day's start (a state indexed by a rebuild still reading it); the
    // states are taken again after that read, so none dropped meanwhile (its slot reused) is marked.
    if (states.some((s) => s.sodDay !== day)) {
      await this.startDays(states, now, day);
      states = indexed();
    }
    const suspects: AccountState[] = [];
    const warnings: AccountState[] = [];
    const h = this.table.hot;
    for (const s of states) {
      this.remark(s);
      if (!this.markSlot(s.slot, minute)) continue;
      const o = s.slot * STRIDE;
      const equity = h[o + EQUITY];
      if (equity < h[o + BREACH_BELOW]) suspects.push(s);
      else if (equity >= h[o + PASS_AT_OR_ABOVE]) {
        // Consistency is weighed only when it is all that stands between the account and a pass
        // (today's floating profit counts as today's); in memory, from the days' profits loaded with the account.
        if (!s.dayProfits || consistencyHolds(s.account.terms, withToday(s.dayProfits, day, equity - s.account.balance))) suspects.push(s);
      } else if (equity < h[o + WARN_BELOW]) warnings.push(s);
    }
    const decided: number[] = [];
    await inLanes(suspects, async (state) => {
      const started = performance.now();
      const done = this.verdictStarted();
      const outcome = await guarded(this.options.logger, () =>
        evaluateAccount(this.verdictCtx, state.account.number, {
          peakEquity: this.table.get(state.slot, PEAK),
          startOfDayBalance: state.sod ?? state.account.balance,
          startOfDayEquity: state.dayStart?.equity,
          highestEodBalance: state.dayStart?.highestEodBalance,
        }),
      );
      done();
      const ended = performance.now();
      this.metrics.verdictTransaction.observe((ended - started) / 1000);
      if (outcome?.kind === 'breached' || outcome?.kind === 'passed') this.metrics.verdictLatency.observe((ended - receivedAt) / 1000);
      // Reloaded whatever the outcome: an unchanged verdict means this replica's view was stale.
      if (outcome) decided.push(state.account.number);
    });
    if (decided.length > 0) await this.reloadAccounts(decided);
    if (warnings.length > 0) await this.sendWarnings(warnings, day);
    for (const s of states) {
      if (s.positions.size === 0 && this.accounts.get(s.account.number) === s) this.drop(s);
    }
  }

  /**
   * account.warning for the accounts whose marks passed a warning level: once per rule and trading
   * day (daily) or attempt (total); what was sent is remembered here, the database decides.
   */
  private async sendWarnings(states: AccountState[], day: string): Promise<void> {
    await inLanes(states, async (s) => {
      const equity = this.table.get(s.slot, EQUITY);
      const due = warningsAt(s.account.terms, s.limits, equity, s.account.initialBalance).filter(
        (w) => !s.warned.has(warningKey(w.rule, day, s.account.attempt)),
      );
      if (due.length > 0) {
        for (const w of due) s.warned.add(warningKey(w.rule, day, s.account.attempt));
        await guarded(this.options.logger, () => recordWarnings(this.ctx, s.account, due, equity, day));
      }
      // What was sent is no longer a threshold for this period.
      if (this.accounts.get(s.account.number) === s && s.sodDay === day) storeThresholds(s, this.table);
    });
  }

  /** Takes an account out of the index (its unwritten marks and open minute are kept for the next flush). */
  private drop(s: AccountState): void {
    // Its last mark exact before it is kept for the next flush.
    this.settleSlot(s.slot);
    for (const p of s.positions.values()) this.books.get(p.symbol)?.remove(p.id);
    this.writer.retire(s.slot, s.account.number);
    this.table.release(s.slot);
    this.accounts.delete(s.account.number);
    this.countPositions();
  }

  private countPositions(): void {
    let n = 0;
    for (const b of this.books.values()) n += b.size + b.pending.size;
    this.metrics.positions.set(n);
  }

  /**
   * Re-reads accounts and their live positions after a change (ours or another replica's). An
   * account another replica owns is loaded only as a guest (for one call: `guests`); otherwise only
   * if still indexed, so an account handed over meanwhile is not taken back.
   */
  async reloadAccounts(numbers: number[], guests = false): Promise<void> {
    if (!guests) numbers = numbers.filter((n) => this.owns(n) || this.accounts.has(n));
    if (numbers.length === 0) return;
    const ticket = ++this.rebuildTicket;
    await this.rebuildAccounts(numbers, await livePositionsOfAccounts(this.options.sequelize, numbers), ticket);
  }

  /**
   * Indexes the accounts as read (`live`: their live positions, read after `ticket` was taken). A
   * rebuild that began reading before another one already applied to an account holds older rows
   * for it (a balance before a close, a position since closed): that account is left as the newer
   * one published it, so a late rebuild never takes an account back in time.
   */
  private async rebuildAccounts(numbers: number[], live: Position[], ticket: number): Promise<void> {
    const accounts = new Map((await readAccounts(this.options.sequelize, numbers)).map((a) => [a.number, a]));
    const days = await tradingDaysOf(this.options.sequelize, numbers);
    // The day's start is read before any rebuilt state is indexed: a state published without it
    // would be judged (by a concurrent evaluate or quote) with no daily limit at all.
    // (Accounts already started today with the same money keep their start: no query for them.)
    const day = this.day;
    const unstarted = numbers.filter((n) => {
      const account = accounts.get(n);
      const previous = this.accounts.get(n);
      return day !== undefined && account?.status === 'active' && !(previous?.sodDay === day && sameMoney(previous, account));
    });
    const sods = day !== undefined && unstarted.length > 0 ? await this.readDayStarts(unstarted, dateOf(this.clock), day) : new Map<number, DayStart>();
    const late: AccountState[] = [];
    const consistent = [...accounts.values()].filter((a) => a.status === 'active' && a.terms.consistencyPct !== null).map((a) => a.number);
    const dayProfits = await dailyProfitsOf(this.options.sequelize, consistent, this.options.rolloverHourUtc);
    const byAccount = new Map<number, Position[]>();
    for (const p of live) {
      const list = byAccount.get(p.accountNumber);
      if (list) list.push(p);
      else byAccount.set(p.accountNumber, [p]);
    }
    const t = this.table;
    const rebuilt: AccountState[] = [];
    for (const n of numbers) {
      if ((this.appliedTicket.get(n) ?? 0) > ticket) continue;
      this.appliedTicket.set(n, ticket);
      const previous = this.accounts.get(n);
      if (previous) for (const p of previous.positions.values()) this.books.get(p.symbol)?.remove(p.id);
      const account = accounts.get(n);
      const mine = byAccount.get(n) ?? [];
      // Accounts without live positions stay until evaluated once (a closing loss may breach), then evaluate() prunes them.
      if (!account || account.status !== 'active') {
        if (previous) this.drop(previous);
        continue;
      }
      const slot = previous?.slot ?? t.allocate();
      // A reset or payout moved the money: what this replica learnt of the account before is dropped.
      const same = sameMoney(previous, account);
      if (previous && !same) this.writer.forget(slot, account);
      const peakEquity = Math.max(account.peakEquity, same ? t.get(slot, PEAK) : 0);
      const state = accountState(account, mine, days.get(n) ?? 0, same ? previous : undefined, slot, peakEquity);
      if (account.terms.consistencyPct !== null) state.dayProfits = dayProfits.get(n) ?? [];
      if (day !== undefined && day === this.day && state.sodDay !== day) {
        const start = sods.get(n);
        if (start) startDay(state, day, start, peakEquity);
        else late.push(state);
      }
      this.accounts.set(n, state);
      t.states[slot] = state;
      t.set(slot, BALANCE, account.balance);
      t.set(slot, PEAK, peakEquity);
      t.set(slot, TRAILING, thresholdsMoveWith(account.terms).peakEquity ? 1 : 0);
      if (Number.isNaN(t.get(slot, EQUITY))) t.set(slot, EQUITY, account.equity);
      for (const p of mine) {
        let book = this.books.get(p.symbol);
        if (!book) this.books.set(p.symbol, (book = new PositionBook(p.symbol)));
        if (p.status === 'pending') {
          book.pending.set(p.id, p);
          continue;
        }
        if (p.status !== 'open' || p.openPrice === null) continue;
        const watched = account.terms.flagWeekendHolding && p.openedAt && !state.weekendChecked.has(p.id);
        book.add(p, slot, watched ? nextWeekendStart(p.openedAt as Date) : Infinity);
      }
      this.remark(state);
      storeThresholds(state, t);
      rebuilt.push(state);
    }
    this.countPositions();
    this.forgetOldTickets();
    // The day turned while this rebuild read (ensureDay started the others), or a state's start
    // was not read above (replaced meanwhile): read now. Before the engine began a day, ensureDay does.
    if (this.day !== undefined) await this.startDays(this.day !== day ? rebuilt : late, dateOf(this.clock), this.day);
  }

  /** Tickets far older than any rebuild still reading are dropped (the map would otherwise keep every account ever indexed). */
  private forgetOldTickets(): void {
    if (this.appliedTicket.size <= 2 * this.accounts.size + 10_000) return;
    const horizon = this.rebuildTicket - 10_000;
    for (const [n, ticket] of this.appliedTicket) if (ticket < horizon && !this.accounts.has(n)) this.appliedTicket.delete(n);
  }

  /** Start-of-day balance as the engine knows it (null before the account was first marked today). */
  startOfDayBalance(accountNumber: number): number | null {
    const s = this.accounts.get(accountNumber);
    return s && s.sodDay === tradingDayOf(dateOf(this.clock), this.options.rolloverHourUtc) ? (s.sod ?? null) : null;
  }

  private tick(): Promise<void> {
    if (this.ticking || this.closing.signal.aborted) return this.ticking ?? Promise.resolve();
    this.ticking = this.refresh().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** The background tick: streamed quotes stored, other replicas' quotes and changes picked up, verdict connections rehearsed, marks flushed. */
  private async refresh(): Promise<void> {
    try {
      await this.flushQuotes();
      for (const q of await loadQuotes(this.options.sequelize)) {
        const cached = this.quotes.get(q.symbol);
        if (!cached || q.time.getTime() > cached.time.getTime()) this.quotes.set(q.symbol, q);
      }
      const changes = (await recentlyChangedAccounts(this.options.sequelize, CHANGE_LOOKBACK_SECONDS)).filter((c) => this.owns(c.accountNumber));
      const reload = changes.filter((c) => (this.knownChanges.get(c.accountNumber) ?? 0) < c.changedAt.getTime());
      for (const c of reload) this.knownChanges.set(c.accountNumber, c.changedAt.getTime());
      if (this.knownChanges.size > 10_000) this.knownChanges.clear();
      await this.reloadAccounts(reload.map((c) => c.accountNumber));
      // Not while a verdict runs: the rehearsals take every verdict connection for a few milliseconds.
      if (this.verdicts.running === 0) await this.rehearseVerdicts();
      if (this.clock.now() - this.writer.lastFlush >= (this.options.equityFlushMs ?? 1000)) await this.flushMarks('none');
    } catch (err) {
      // A tick cut short by stop() has nothing to report: the final flush follows.
      if (!this.closing.signal.aborted) this.options.logger.warn({ err }, 'trading engine tick failed');
    }
  }

  private async flushQuotes(): Promise<void> {
    if (this.unsavedQuotes.size === 0) return;
    const batch = [...this.unsavedQuotes.values()];
    this.unsavedQuotes.clear();
    await upsertQuotes(this.options.sequelize, batch);
  }

  /** Stops taking quotes and ticking, waits for the work under way, and writes what is pending. Call before closing the pool. */
  async stop(): Promise<void> {
    this.closing.abort();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.loading?.catch(() => undefined);
    await this.ticking;
    await this.drained();
    while (this.rebalancing) await this.rebalancing;
    try {
      await this.flushQuotes();
      await this.flushMarks('all');
    } catch (err) {
      this.options.logger.warn({ err }, 'final trading flush failed');
    }
    // The lease last: the others take this replica's accounts once its marks are written.
    await this.options.cluster?.stop().catch((err: unknown) => this.options.logger.warn({ err }, 'leaving the replicas failed'));
  }
}
