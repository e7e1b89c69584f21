import Redis from 'ioredis';
import type { Logger } from '@propdesk/kit';

export interface RedisForLimitsOptions {
  /** Per-command bound (ioredis commandTimeout); default 50 ms. */
  commandTimeoutMs?: number;
  /** Longest pause between reconnection attempts; default 500 ms so shared limiting resumes quickly. */
  maxReconnectDelayMs?: number;
}

/**
 * An ioredis client that never makes a request wait for Redis (TRAPS.md): no offline queue (a
 * command while disconnected fails at once), no per-request retries, a short command timeout, and
 * reconnection in the background with a capped backoff. The caller owns it and quits it on shutdown.
 */
export function createRedisForLimits(url: string, logger: Logger, options: RedisForLimitsOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 500;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 50,
    connectTimeout: 1_000,
    enableReadyCheck: true,
    autoResubscribe: false,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
    connectionName: 'propdesk-gateway-limits',
  });
  // Without a listener ioredis prints every failed reconnection to stderr; the limits module logs
  // one warning per outage instead, so these stay at debug.
  redis.on('error', (err: Error) => logger.debug({ err: err.message }, 'redis (rate limits) connection error'));
  return redis;
}

/** Resolves once the client is ready, or after timeoutMs either way (a down Redis must not stop the boot). */
export async function waitForRedis(redis: Redis, timeoutMs = 2_000): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
