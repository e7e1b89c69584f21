import { z } from 'zod';
import type { Sequelize } from 'sequelize';
import type { Logger } from './logger';

/**
 * Retention: the scheduled jobs that keep tables from growing forever. Each service makes one
 * scheduler and registers its tasks (one per table or kind of row, each with its own horizon);
 * a module added later (e.g. expired idempotency records) registers its own task the same way:
 *
 *   const retention = startRetention({ logger, intervalMs: config.RETENTION_INTERVAL_MS });
 *   retention.register({ name: 'webhook events', horizonMs: config.WEBHOOK_EVENTS_RETENTION, run: (cutoff) => ... });
 *
 * A task deletes (or compacts) what is older than `cutoff` (now minus its horizon) and answers how
 * many rows it removed. Passes never overlap, a failing task is logged and does not stop the
 * others (a database outage just means the next pass catches up), and stop() waits for the pass
 * in progress. Tasks should delete in batches (deleteInBatches) so no pass holds long locks.
 */
export interface RetentionTask {
  /** Shown in logs and returned by runOnce, e.g. "webhook deliveries". */
  name: string;
  /** How old a row must be to go; 0 disables the task. */
  horizonMs: number;
  /** Removes what is older than `cutoff`; resolves with the number of rows removed. */
  run(cutoff: Date): Promise<number>;
}

export interface RetentionScheduler {
  register(task: RetentionTask): void;
  /** One pass over every task now (tests, and the scheduler's own timer); rows removed per task. */
  runOnce(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export function startRetention(options: { logger: Logger; intervalMs: number; now?: () => Date }): RetentionScheduler {
  const tasks: RetentionTask[] = [];
  const now = options.now ?? (() => new Date());
  let running: Promise<Record<string, number>> | null = null;
  let stopped = false;

  const pass = async (): Promise<Record<string, number>> => {
    const removed: Record<string, number> = {};
    for (const task of tasks) {
      if (stopped) break;
      if (task.horizonMs <= 0) continue;
      const cutoff = new Date(now().getTime() - task.horizonMs);
      try {
        removed[task.name] = await task.run(cutoff);
        if (removed[task.name] > 0) options.logger.info({ task: task.name, removed: removed[task.name], cutoff: cutoff.toISOString() }, 'retention pass');
      } catch (err) {
        options.logger.warn({ task: task.name, err: (err as Error).message }, 'retention task failed; the next pass retries');
      }
    }
    return removed;
  };

  const runOnce = (): Promise<Record<string, number>> => {
    if (running) return running.then(() => runOnce());
    running = pass().finally(() => {
      running = null;
    });
    return running;
  };

  const tick = () => {
    if (!stopped && !running) void runOnce();
  };
  // The first pass one interval after the start, like every other.
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();

  return {
    register(task) {
      tasks.push(task);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running.catch(() => undefined);
    },
  };
}

/**
 * Runs `deleteBatch` (one DELETE ... LIMIT-style statement answering how many rows it removed)
 * until a batch removes fewer than `batchSize` rows; the total removed.
 */
export async function deleteInBatches(deleteBatch: (batchSize: number) => Promise<number>, batchSize = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await deleteBatch(batchSize);
    total += removed;
    if (removed < batchSize) return total;
  }
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration from the environment, in milliseconds: a number with an optional unit (`30d`, `12h`,
 * `90m`, `45s`, `500ms`; a bare number is seconds). `off` (or 0) turns a retention task off.
 */
export const envDuration = (defaultValue: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const text = value === undefined || value.trim() === '' ? defaultValue : value.trim();
      if (text.toLowerCase() === 'off') return 0;
      const match = DURATION.exec(text);
      if (!match) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a duration such as 30d, 12h, 90m, 45s or 500ms (a bare number is seconds), or off' });
        return z.NEVER;
      }
      return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']);
    });

/** The environment switches every service with retention tasks reads (RETENTION_INTERVAL_MS: how often a pass runs). */
export const retentionIntervalSchema = z.object({
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
});

/** Runs one DELETE (or other row-changing statement; `$name` binds as in sql.ts) and answers how many rows it touched. */
export async function affectedRows(sequelize: Sequelize, statement: string, bind: Record<string, unknown>): Promise<number> {
  const [, meta] = await sequelize.query(statement, { bind });
  return Number((meta as { rowCount?: number } | undefined)?.rowCount ?? 0);
}
