import { performance } from 'node:perf_hooks';
import type { Logger, Sequelize } from '@propdesk/kit';
import { lockAccounts } from '../core-port';
import { anyDueDeadline, moveDeadline, takeDueDeadlines, type Deadline } from '../data/rule-deadlines';
import type { Clock } from '../domain/clock';
import { applyDeadlines, type DeadlineOutcome } from '../use-cases/time-rules';
import type { TradingContext } from '../use-cases/trading-context';

export interface DeadlineSchedulerOptions {
  sequelize: Sequelize;
  logger: Logger;
  /** The live market's clock: when a deadline is due. */
  clock: Clock;
  /** The live market's context (its clock and prices): what a deadline acts at; asked for only once one is due (it loads the engine). */
  context(): Promise<TradingContext>;
  /** How often it looks for deadlines come due (a few seconds: SPEC 15 allows 60). */
  intervalMs: number;
  /** Deadlines taken per transaction. */
  batch: number;
  /** Transactions at once (each takes other rows: SKIP LOCKED). */
  lanes: number;
}

/** A deadline that failed on its own is tried again this much later (it never blocks the others). */
const RETRY_MS = 60_000;

/**
 * The live market's scheduler of SPEC 15's time rules (time limits, inactivity, session ends,
 * lock expiry): every few seconds, the rows of rule_deadlines come due are taken in due order,
 * `batch` per transaction and `lanes` transactions at once, with FOR UPDATE SKIP LOCKED (so every
 * replica runs one, and they share the work without waiting on each other); each batch locks its
 * accounts in number order and applies each deadline (time-rules.ts). A firm pays for the accounts
 * whose moment came, never for a scan of its accounts; the engine's quote path pays nothing. A
 * test clock's deadlines are its advance's (time-effects.ts), never this.
 */
export class DeadlineScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;
  /** Deadlines applied since start, by outcome (tests, the bench). */
  readonly applied: Record<DeadlineOutcome, number> = { acted: 0, moved: 0, dropped: 0 };

  constructor(private readonly options: DeadlineSchedulerOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.pass(), this.options.intervalMs);
    this.timer.unref();
    void this.pass();
  }

  /** Applies every deadline due now (resolves with how many); a pass in progress is joined, not doubled. */
  pass(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<number> {
    const started = performance.now();
    let total = 0;
    try {
      if (!(await anyDueDeadline(this.options.sequelize, new Date(this.options.clock.now())))) return 0;
      const ctx = await this.options.context();
      const lane = async () => {
        for (;;) {
          if (this.stopped) return;
          const n = await this.batchOnce(ctx);
          total += n;
          if (n < this.options.batch) return;
        }
      };
      await Promise.all(Array.from({ length: this.options.lanes }, lane));
    } catch (err) {
      if (!this.stopped) this.options.logger.warn({ err }, 'applying the time rules failed; trying again at the next pass');
    }
    if (total > 0) this.options.logger.info({ deadlines: total, ms: Math.round(performance.now() - started) }, 'time rules applied');
    return total;
  }

  /** One transaction: up to `batch` due deadlines, their accounts locked in number order. A failure is retried row by row. */
  private async batchOnce(ctx: TradingContext): Promise<number> {
    const { sequelize, batch } = this.options;
    let taken: Deadline[] = [];
    try {
      return await sequelize.transaction(async (tx) => {
        taken = await takeDueDeadlines(sequelize, tx, ctx.now(), batch);
        if (taken.length === 0) return 0;
        const accounts = new Map((await lockAccounts(sequelize, tx, [...new Set(taken.map((d) => d.accountNumber))])).map((a) => [a.number, a]));
        for (const o of await applyDeadlines(ctx, tx, accounts, taken)) this.applied[o] += 1;
        return taken.length;
      });
    } catch (err) {
      if (taken.length === 0) throw err;
      // One bad row must not hold the rest back: each on its own, a failing one later.
      for (const d of taken) await this.alone(ctx, d);
      return taken.length;
    }
  }

  private async alone(ctx: TradingContext, d: Deadline): Promise<void> {
    const { sequelize, logger } = this.options;
    try {
      const outcomes = await sequelize.transaction(async (tx) => {
        const accounts = new Map((await lockAccounts(sequelize, tx, [d.accountNumber])).map((a) => [a.number, a]));
        return applyDeadlines(ctx, tx, accounts, [d]);
      });
      for (const o of outcomes) this.applied[o] += 1;
    } catch (err) {
      logger.warn({ err, account: d.accountNumber, rule: d.rule }, 'a time rule failed; it is tried again later');
      await sequelize.transaction((tx) => moveDeadline(sequelize, tx, d, new Date(ctx.now().getTime() + RETRY_MS))).catch(() => undefined);
    }
  }

  /** Stops looking; waits for the pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
