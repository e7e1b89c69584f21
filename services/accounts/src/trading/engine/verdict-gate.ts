import { performance } from 'node:perf_hooks';
import type { Logger, Sequelize } from '@propdesk/kit';
import type { Clock } from '../domain/clock';
import { withToday } from '../data/daily-profits';
import { consistencyHolds, warningsAt, type Warning } from '../domain/rules';
import { evaluateAccount } from '../use-cases/evaluate-account';
import { recordWarnings, warningKey } from '../use-cases/record-warnings';
import { rehearseBreach } from '../use-cases/rehearse-breach';
import type { TradingContext } from '../use-cases/trading-context';
import { storeThresholds, type AccountState } from './account-state';
import { BREACH_BELOW, EQUITY, PASS_AT_OR_ABOVE, PEAK, STRIDE, WARN_BELOW, type AccountTable } from './account-table';
import { guarded, inLanes } from './lanes';
import type { EngineMetrics } from './metrics';

/** Longest the equity writer holds a statement for running verdicts. */
const VERDICT_WAIT_MS = 200;
/** A failed rehearsal of the verdict connections is tried again after this long. */
const REHEARSAL_RETRY_MS = 5000;
/** A verdict that failed (a statement timeout, a deadlock, a lost connection) is due again after this long. */
const VERDICT_RETRY_MS = 1000;

export interface VerdictGateOptions {
  /** What warnings are recorded with. */
  ctx: TradingContext;
  /** The engine's verdict pool (TradingEngineOptions.verdicts), if it has one. */
  pool?: { sequelize: Sequelize; connections: number };
  table: AccountTable;
  /** The indexed accounts: the rehearsals borrow some of them; a warning's thresholds are stored only for a state still indexed. */
  accounts: ReadonlyMap<number, AccountState>;
  metrics: EngineMetrics;
  logger: Logger;
  clock: Clock;
}

/**
 * What the engine does with the accounts its marks put past a threshold: a verdict (breach or
 * pass) is taken under the account's row lock on committed rows (evaluate-account.ts), on the
 * verdict pool, whose connections are kept warm by rehearsals (rehearse-breach.ts); a warning not
 * yet sent is recorded once per period. While a verdict runs, the equity writer holds its next
 * statement (verdictsFirst), so a breach never queues behind a flush.
 */
export class VerdictGate {
  /** ctx on the verdict pool, or ctx itself. */
  private readonly verdictCtx: TradingContext;
  /** Connections the verdict pool has opened, how many of them the last rehearsal left warm (-1: none yet), and when a failed one is tried again. */
  private readonly connections = { opened: 0, rehearsed: -1, retryAt: 0 };
  /** Verdict transactions running, and what resolves when none does. */
  private running = 0;
  private quiet?: { promise: Promise<void>; resolve: () => void };
  /** Accounts whose last verdict failed, and when (performance.now(): a pause, not trading time) each is judged again. */
  private readonly failed = new Map<number, number>();

  constructor(private readonly options: VerdictGateOptions) {
    this.verdictCtx = options.pool ? { ...options.ctx, sequelize: options.pool.sequelize } : options.ctx;
    // The pool reopens a connection it lost (a restarted database, a terminated backend) on its
    // own; each one opened outside a rehearsal is cold until rehearsed again.
    options.pool?.sequelize.addHook('afterConnect', () => {
      this.connections.opened += 1;
    });
  }

  /** Whether a verdict transaction is running. */
  busy(): boolean {
    return this.running > 0;
  }

  /**
   * Sorts accounts whose exact mark crossed a threshold: a verdict is due below the breach level,
   * or at the pass level with the consistency rule holding; below a warning level only, a warning.
   */
  sort(crossed: AccountState[], now: Date): { suspects: AccountState[]; warnings: AccountState[] } {
    const suspects: AccountState[] = [];
    const warnings: AccountState[] = [];
    const h = this.options.table.hot;
    for (const s of crossed) {
      const o = s.slot * STRIDE;
      const equity = h[o + EQUITY];
      if (equity < h[o + BREACH_BELOW]) suspects.push(s);
      else if (equity >= h[o + PASS_AT_OR_ABOVE]) {
        // Consistency is weighed only when it is all that stands between the account and a pass
        // (today's floating profit counts as today's); in memory, from the days' profits loaded with
        // the account. The day's profit cap (SPEC 15) locks whatever the consistency.
        if (!s.dayProfits || equity >= s.limits.profitCap || consistencyHolds(s.account.terms, withToday(s.dayProfits, s.calendar.dayOf(now), equity - s.account.balance))) {
          suspects.push(s);
        }
      } else if (equity < h[o + WARN_BELOW]) warnings.push(s);
    }
    return { suspects, warnings };
  }

  /**
   * The locked re-check of each suspect (at most a lane each at once); `receivedAt` is when the
   * quote that marked them arrived (performance.now()). Returns the accounts it decided on,
   * whatever the outcome: an unchanged verdict means this replica's view was stale.
   */
  async judge(suspects: AccountState[], receivedAt: number): Promise<number[]> {
    const decided: number[] = [];
    const { table, metrics, logger } = this.options;
    await inLanes(suspects, async (state) => {
      const started = performance.now();
      const done = this.started();
      const outcome = await guarded(logger, () =>
        evaluateAccount(this.verdictCtx, state.account.number, {
          peakEquity: table.get(state.slot, PEAK),
          startOfDayBalance: state.sod ?? state.account.balance,
          startOfDayEquity: state.dayStart?.equity,
          highestEodBalance: state.dayStart?.highestEodBalance,
        }),
      );
      done();
      const ended = performance.now();
      metrics.verdictTransaction.observe((ended - started) / 1000);
      if (outcome?.kind === 'breached' || outcome?.kind === 'passed' || outcome?.kind === 'locked') metrics.verdictLatency.observe((ended - receivedAt) / 1000);
      if (outcome) {
        decided.push(state.account.number);
        this.failed.delete(state.account.number);
      } else this.failed.set(state.account.number, performance.now() + VERDICT_RETRY_MS);
    });
    return decided;
  }

  /**
   * Accounts whose verdict failed and is due again (taken off the list; another failure puts them
   * back): the engine marks them again, so a breach lost to a transient error is taken within about
   * VERDICT_RETRY_MS, not at the symbol's next quote.
   */
  dueAgain(): number[] {
    if (this.failed.size === 0) return [];
    const now = performance.now();
    const due: number[] = [];
    for (const [n, at] of this.failed) {
      if (at > now) continue;
      this.failed.delete(n);
      due.push(n);
    }
    return due;
  }

  /**
   * account.warning for the accounts whose marks passed a warning level: once per rule and trading
   * day (daily) or attempt (total); what was sent is remembered here, the database decides.
   */
  async warn(states: AccountState[], now: Date): Promise<void> {
    const { table, accounts, ctx, logger } = this.options;
    await inLanes(states, async (s) => {
      const day = s.calendar.dayOf(now);
      const equity = table.get(s.slot, EQUITY);
      const keyOf = (w: Warning) => warningKey(w.rule, day, s.account.attempt);
      const due = warningsAt(s.account.terms, s.limits, equity, s.account.initialBalance).filter((w) => !s.warned.has(keyOf(w)));
      if (due.length > 0) {
        const keys = due.map(keyOf);
        for (const k of keys) s.warned.add(k);
        const recorded = await guarded(logger, () => recordWarnings(ctx, s.account, due, equity, day).then(() => true));
        // Not recorded (a transient failure): still a threshold, so the account's next mark sends it.
        if (!recorded) for (const k of keys) s.warned.delete(k);
      }
      // What was sent is no longer a threshold for this period, and what failed is one again. On the
      // state indexed now: a reload while the warning ran indexed another one (sharing `warned`),
      // its thresholds stored while the warning was taken for sent.
      const current = accounts.get(s.account.number);
      if (current && current.sodDay === day) storeThresholds(current, table);
    });
  }

  /** A verdict begins; the returned function ends it. While any runs, the equity writer holds its next statement. */
  private started(): () => void {
    this.running += 1;
    if (!this.quiet) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.quiet = { promise, resolve };
    }
    return () => {
      this.running -= 1;
      if (this.running > 0) return;
      this.quiet?.resolve();
      this.quiet = undefined;
    };
  }

  /** Resolves when no verdict runs, or after VERDICT_WAIT_MS (marks are bounded in age, not starved by a run of breaches). */
  async verdictsFirst(): Promise<void> {
    const quiet = this.quiet;
    if (!quiet) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([quiet.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, VERDICT_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Once the index holds accounts, and again whenever the verdict pool has opened a connection
   * since: a breach rehearsed and rolled back on every connection of the pool, all at once so that
   * each takes its own (rehearse-breach.ts). Connections the rehearsals open are theirs, so it
   * does not repeat itself; one that fails is tried again after REHEARSAL_RETRY_MS.
   */
  async rehearse(): Promise<void> {
    const { pool, accounts, clock, logger, metrics } = this.options;
    const seen = this.connections;
    if (!pool || accounts.size === 0 || seen.opened === seen.rehearsed || clock.now() < seen.retryAt) return;
    const started = performance.now();
    const held: number[] = [];
    for (const n of accounts.keys()) if (held.push(n) === pool.connections) break;
    const numbers = Array.from({ length: pool.connections }, (_, i) => held[i % held.length]);
    const failed = (await Promise.allSettled(numbers.map((n) => rehearseBreach(this.verdictCtx, n)))).find((r) => r.status === 'rejected');
    if (failed) {
      seen.retryAt = clock.now() + REHEARSAL_RETRY_MS;
      logger.warn({ err: failed.reason }, 'rehearsing the verdict connections failed; trying again shortly');
      return;
    }
    seen.rehearsed = seen.opened;
    metrics.rehearsals.inc(pool.connections);
    logger.debug({ connections: pool.connections, ms: performance.now() - started }, 'verdict connections rehearsed');
  }
}
