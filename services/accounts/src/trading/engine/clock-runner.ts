import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger, Sequelize } from '@propdesk/kit';
import { advancingClockIds, claimAdvance, releaseAdvance } from '../core-port';
import type { WalkOutcome } from '../use-cases/walk-test-clock';

export interface ClockRunnerOptions {
  sequelize: Sequelize;
  logger: Logger;
  /** How often it looks for advancing clocks nobody walks (a replica that died, a restart). */
  pollMs: number;
  /** The lease a walk is held by, renewed at every step (clock-runner walks; PostgreSQL's clock). */
  leaseMs: number;
  /** Walks one clock for this runner until it is ready, lost or stopped (walk-test-clock.ts). */
  walk(clockId: string, runner: string, signal: AbortSignal): Promise<WalkOutcome>;
}

/**
 * The background job that advances test clocks (SPEC 13). An advance is persisted (the clock
 * advancing, its target and its progress in its row); whichever replica holds the walk's lease
 * walks it, step by step (walk-test-clock.ts). Every replica looks for advancing clocks at
 * start and then every `pollMs`, and at once when told of an advance it committed (kick): a
 * clock whose walker died (a crash, a SIGKILL) is taken over once its lease expired and resumed
 * from its last committed step. Only one replica walks a given clock at a time: the lease is
 * taken in the clock's row, and each step checks it under the clock's row lock.
 */
export class TestClockRunner {
  /** This runner's identity in the leases: a new one per process. */
  readonly id = randomUUID();
  private readonly walking = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private timer?: NodeJS.Timeout;
  private looking?: Promise<void>;
  private lookAgain = false;

  constructor(private readonly options: ClockRunnerOptions) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for advancing clocks now (an advance was just committed here, or the poll). */
  kick(): void {
    if (this.stopping.signal.aborted) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = this.look().finally(() => {
      this.looking = undefined;
      if (this.lookAgain) {
        this.lookAgain = false;
        this.kick();
      }
    });
  }

  private async look(): Promise<void> {
    const { sequelize, logger, leaseMs } = this.options;
    try {
      for (const clockId of await advancingClockIds(sequelize)) {
        if (this.stopping.signal.aborted) return;
        if (this.walking.has(clockId) || !(await claimAdvance(sequelize, clockId, this.id, leaseMs))) continue;
        const walk = this.walkOne(clockId).finally(() => this.walking.delete(clockId));
        this.walking.set(clockId, walk);
      }
    } catch (err) {
      if (!this.stopping.signal.aborted) logger.warn({ err }, 'looking for advancing test clocks failed');
    }
  }

  private async walkOne(clockId: string): Promise<void> {
    const { logger, sequelize } = this.options;
    const started = performance.now();
    try {
      const outcome = await this.options.walk(clockId, this.id, this.stopping.signal);
      logger.info({ clockId, outcome, ms: Math.round(performance.now() - started) }, 'test clock walk ended');
      if (outcome === 'stopped') await releaseAdvance(sequelize, clockId, this.id);
    } catch (err) {
      // Nothing of the failed step committed: the next look resumes from the last committed one.
      if (!this.stopping.signal.aborted) logger.warn({ err, clockId }, 'advancing a test clock failed; it is resumed shortly');
    }
  }

  /** Resolves once no clock is being walked by this runner (tests). */
  async idle(): Promise<void> {
    while (this.looking || this.walking.size > 0) await Promise.all([this.looking, ...this.walking.values()]);
  }

  /** Stops between steps: a walk cut short here is resumed from its last committed step (by a replica, or the next start). */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.timer);
    await this.looking;
    await Promise.all(this.walking.values());
  }
}
