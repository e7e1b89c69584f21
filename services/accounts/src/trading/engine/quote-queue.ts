import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { AppError, type Logger } from '@propdesk/kit';
import type { Quote } from '../domain/instruments';
import type { EngineMetrics } from './metrics';

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

/** Synchronous marking work between two yields to the event loop (so the feed's socket and other RPCs are served). */
const SLICE_MS = 8;
/** The "behind its feed" warning is logged at most this often. */
const LAG_WARNING_EVERY_MS = 10_000;

export interface QuoteQueueOptions {
  /** Evaluates one quote, on its own (the engine's marking of its symbol and what crossed). */
  evaluate(quote: Quote, receivedAt: number): Promise<void>;
  metrics: EngineMetrics;
  logger: Logger;
  /** A quote waiting longer than this is reported (log and the lag metric). */
  lagWarnMs: number;
  /** Aborted when the engine stops: quotes offered after that are refused (EngineClosedError). */
  closed: AbortSignal;
}

/**
 * The engine's quotes waiting for evaluation, oldest first: each is evaluated on its own, in
 * arrival order (none is merged into a later one), one at a time, with a yield to the event loop
 * every SLICE_MS. It reports its backlog and lag, and tells the feed when to resume reading
 * (backlogBelow: the stream's back-pressure).
 */
export class QuoteQueue {
  /** Waiting quotes from `head` on (the array is compacted once its consumed half is large). */
  private queue: QueuedQuote[] = [];
  private head = 0;
  private readonly backlogWaiters: Array<{ below: number; resolve: () => void }> = [];
  private draining = false;
  /** The running drain, or the last one: what drained() awaits. */
  private drainRun: Promise<void> = Promise.resolve();
  private lastLagWarning = -Infinity;

  constructor(private readonly options: QuoteQueueOptions) {}

  /** Quotes received and not yet evaluated. */
  backlog(): number {
    return this.queue.length - this.head;
  }

  /** Resolves once fewer than `below` quotes wait (the feed resumes reading then). */
  backlogBelow(below: number): Promise<void> {
    if (this.backlog() < below) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push({ below, resolve }));
  }

  /** Takes a quote for evaluation in turn; resolves once it was evaluated. Refused once the engine stopped. */
  enqueue(quote: Quote): Promise<void> {
    if (this.options.closed.aborted) return Promise.reject(new EngineClosedError());
    this.options.metrics.received.inc();
    return new Promise<void>((resolve) => {
      this.queue.push({ quote, receivedAt: performance.now(), resolve });
      this.options.metrics.backlog.set(this.backlog());
      if (!this.draining) {
        this.draining = true;
        this.drainRun = this.drain();
      }
    });
  }

  /** Resolves once every quote taken so far is evaluated (a drain that starts meanwhile is awaited too). */
  async drained(): Promise<void> {
    while (this.draining) await this.drainRun;
  }

  private async drain(): Promise<void> {
    try {
      let sliceStart = performance.now();
      while (this.head < this.queue.length) {
        const queued = this.queue[this.head];
        this.queue[this.head++] = undefined as unknown as QueuedQuote;
        if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        this.reportLag(queued.receivedAt);
        try {
          this.options.metrics.evaluated.inc();
          await this.options.evaluate(queued.quote, queued.receivedAt);
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
      this.options.metrics.backlog.set(0);
      this.options.metrics.lag.set(0);
      this.releaseBacklogWaiters();
    }
  }

  private releaseBacklogWaiters(): void {
    if (this.backlogWaiters.length === 0) return;
    const backlog = this.backlog();
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
    this.options.metrics.lag.set(lagMs / 1000);
    this.options.metrics.backlog.set(this.backlog());
    if (lagMs >= this.options.lagWarnMs && now - this.lastLagWarning >= LAG_WARNING_EVERY_MS) {
      this.lastLagWarning = now;
      this.options.logger.warn({ lagMs, backlog: this.backlog() }, 'trading engine is behind its quote feed');
    }
  }
}
