import { ConnectionError } from 'sequelize';
import { ConfigError, EXIT_CONFIG } from './config';
import type { Logger } from './logger';
import type { RetentionScheduler } from './retention';
import { flushTelemetry } from './telemetry/tracing';

/**
 * Runs the shutdown steps once, in order, on SIGTERM or SIGINT; a second signal or a step
 * that hangs past the deadline forces the exit.
 */
export function onShutdownSignals(logger: Logger, steps: Array<() => Promise<void> | void>, deadlineMs = 15_000): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown deadline passed: exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    (async () => {
      for (const step of steps) {
        try {
          await step();
        } catch (err) {
          logger.error({ err }, 'shutdown step failed');
        }
      }
      // Spans still in the batch processor (the last requests, the shutdown itself) are sent.
      await flushTelemetry();
      logger.flush?.();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** What a process's start() resolves with: where it listens, its logger, how to stop it. */
export interface StartedProcess {
  port: number;
  /** host:port (the gateway: its base URL). */
  address: string;
  logger: Logger;
  /** A service with retention tasks: its scheduler (tests run a pass with runOnce()). */
  retention?: RetentionScheduler;
  stop(): Promise<void>;
}

/** Where DATABASE_URL points, for a message: host, port and database, never its user or password. */
function databaseTarget(url: string | undefined): string {
  try {
    const parsed = new URL(url ?? '');
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured address';
  }
}

/**
 * What a failed start prints. A config error: its message, which names the variable. PostgreSQL
 * refusing or not answering the first connection (wrong host or port, database down, unknown
 * database, wrong password): one line naming DATABASE_URL's host, port and database and the
 * driver's reason. The stacks of either would bury what to fix, and the second is printed again at
 * every restart. Anything else in full.
 */
export function startFailureReport(err: unknown, env: NodeJS.ProcessEnv): unknown {
  if (err instanceof ConfigError) return err.message;
  for (let cause: unknown = err, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    if (cause instanceof ConnectionError) return `cannot connect to PostgreSQL at ${databaseTarget(env.DATABASE_URL)} (DATABASE_URL): ${cause.message}`;
  }
  return err;
}

/**
 * The entry of a service process (`if (require.main === module) runMain(start)`): starts it from
 * the environment, stops it on SIGTERM/SIGINT, and exits when the start fails, saying why
 * (startFailureReport): EXIT_CONFIG for a config error, 1 for anything else.
 */
export function runMain(start: (env: NodeJS.ProcessEnv) => Promise<StartedProcess>): void {
  start(process.env)
    .then((running) => onShutdownSignals(running.logger, [() => running.stop()]))
    .catch((err: unknown) => {
      console.error(startFailureReport(err, process.env));
      process.exit(err instanceof ConfigError ? EXIT_CONFIG : 1);
    });
}
