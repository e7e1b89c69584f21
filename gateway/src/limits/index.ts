import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '@propdesk/kit';
import { Bucket, type BucketOptions, type StoreHealth } from './bucket';
import { ipBucketKey } from './client-ip-key';
import type { LimitsConfig } from './config';
import type { LimitDecision } from './decision';
import { createLimitsMetrics, type LimitsMetrics } from './metrics';

export type { LimitDecision } from './decision';
export { limitsConfigSchema, limitsConfigFromEnv, type LimitsConfig, type LimitsEnv } from './config';
export { createRedisForLimits, waitForRedis, type RedisForLimitsOptions } from './redis';
export { ipBucketKey } from './client-ip-key';

/** A key's own limits per minute (SPEC section 12); an absent one is the configured default. */
export interface KeyLimits {
  readPerMin?: number;
  writePerMin?: number;
}

export interface LookupVerdict {
  /** 'refuse': answer 429 with `decision` without looking the key up. */
  action: 'lookup' | 'refuse';
  decision?: LimitDecision;
}

export interface Limits {
  /**
   * Before a key lookup. An IP over its limit is refused without reaching the key store, except a
   * key already cached as valid (never refused by the IP limit) and a trickle of one lookup per
   * second, so a valid but not yet cached key from a flooded IP still gets verified.
   */
  beforeLookup(ip: string, cachedValidKey: boolean): Promise<LookupVerdict>;
  /** A request failed authentication (no header, malformed, unknown, revoked key): counts against its IP. */
  onInvalid(ip: string): Promise<LimitDecision>;
  /**
   * An authenticated request; GET/HEAD are reads, everything else writes. Keyed by key id, never the
   * token. `own`: the key's own limits, counted on the same counter (no extra Redis command).
   */
  onValid(keyId: string, write: boolean, own?: KeyLimits): Promise<LimitDecision>;
  /** Optional, stricter per-IP limit for POST /v1/executor/sessions (RATE_LIMIT_LOGIN_PER_MIN, default 20). */
  onLoginAttempt?(ip: string): Promise<LimitDecision>;
  /** True while Redis is unreachable and the in-process insurance limiter answers. */
  readonly degraded: boolean;
  /** Detaches from the Redis client; it does not quit it (whoever created the client quits it). */
  close(): Promise<void>;
}

export interface CreateLimitsOptions {
  config: LimitsConfig;
  logger: Logger;
  /** Shared counters; without it every process limits on its own (a warning says so). */
  redis?: Redis;
  registry?: Registry;
}

const DEFAULT_LOGIN_PER_MIN = 20;
const DEFAULT_REDIS_TIMEOUT_MS = 50;
/** Distinct per-key limit sizes kept at once; past it the least recently made is forgotten. */
const MAX_SIZED_BUCKETS = 1000;

class RedisBackedLimits implements Limits, StoreHealth {
  private readonly reads: Bucket;
  private readonly writes: Bucket;
  private readonly ips: Bucket;
  private readonly logins: Bucket;
  /**
   * Buckets for keys with their own limits, one per distinct size. Each shares its default
   * bucket's name, so its Redis key (prefix:read:<keyId>) is the one the default counts on: a key
   * whose limit changes keeps its count for the window, and a request costs the same one Redis
   * command whatever its limit (only the comparison differs).
   */
  private readonly sized = new Map<string, Bucket>();
  private readonly common: Omit<BucketOptions, 'name' | 'points'>;
  /** One key lookup per second per flooded IP. */
  private readonly trickle = new RateLimiterMemory({ keyPrefix: 'trickle', points: 1, duration: 1 });
  private readonly metrics: LimitsMetrics;
  private isDegraded = false;
  private closed = false;

  constructor(
    config: LimitsConfig,
    private readonly logger: Logger,
    private readonly redis: Redis | undefined,
    registry: Registry | undefined,
  ) {
    this.metrics = createLimitsMetrics(registry);
    this.metrics.degraded.set(0);
    const common = {
      redis,
      keyPrefix: config.keyPrefix ?? 'propdesk:rl',
      replicas: config.replicas ?? 1,
      timeoutMs: config.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS,
      inMemoryBlock: config.inMemoryBlock ?? true,
      health: this,
    };
    this.common = common;
    this.reads = new Bucket({ ...common, name: 'read', points: config.readPerMin });
    this.writes = new Bucket({ ...common, name: 'write', points: config.writePerMin });
    this.ips = new Bucket({ ...common, name: 'ip', points: config.ipPerMin });
    this.logins = new Bucket({ ...common, name: 'login', points: config.loginPerMin ?? DEFAULT_LOGIN_PER_MIN });
    if (redis) {
      redis.on('error', this.onClientError);
      redis.on('ready', this.onClientReady);
    } else {
      logger.warn('REDIS_URL is not set: rate limits are kept in this process only, not shared between gateway replicas');
    }
  }

  get degraded(): boolean {
    return this.isDegraded;
  }

  async beforeLookup(ip: string, cachedValidKey: boolean): Promise<LookupVerdict> {
    if (cachedValidKey) return { action: 'lookup' };
    const key = ipBucketKey(ip);
    const blockedMs = await this.ips.blockedMs(key);
    if (blockedMs === 0) return { action: 'lookup' };
    try {
      await this.trickle.consume(key);
      return { action: 'lookup' };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      this.metrics.refused.inc({ bucket: 'ip' });
      return { action: 'refuse', decision: this.ips.refusal(blockedMs) };
    }
  }

  onInvalid(ip: string): Promise<LimitDecision> {
    return this.count(this.ips, ipBucketKey(ip));
  }

  onValid(keyId: string, write: boolean, own?: KeyLimits): Promise<LimitDecision> {
    const standard = write ? this.writes : this.reads;
    const points = write ? own?.writePerMin : own?.readPerMin;
    const bucket = points === undefined || points === standard.points ? standard : this.bucketOfSize(standard.name, points);
    return this.count(bucket, keyId);
  }

  onLoginAttempt(ip: string): Promise<LimitDecision> {
    return this.count(this.logins, ipBucketKey(ip));
  }

  onStoreSuccess(): void {
    this.leaveDegraded();
  }

  onStoreFailure(reason: string): void {
    this.metrics.fallbacks.inc();
    this.enterDegraded(reason);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.redis?.off('error', this.onClientError);
    this.redis?.off('ready', this.onClientReady);
  }

  private bucketOfSize(name: string, points: number): Bucket {
    const id = `${name}:${points}`;
    let bucket = this.sized.get(id);
    if (bucket === undefined) {
      if (this.sized.size >= MAX_SIZED_BUCKETS) {
        const oldest = this.sized.keys().next();
        if (!oldest.done) this.sized.delete(oldest.value);
      }
      bucket = new Bucket({ ...this.common, name, points });
      this.sized.set(id, bucket);
    }
    return bucket;
  }

  private async count(bucket: Bucket, key: string): Promise<LimitDecision> {
    const decision = await bucket.consume(key);
    if (!decision.allowed) this.metrics.refused.inc({ bucket: bucket.name });
    return decision;
  }

  /** Lets the gauge show an outage even while no request arrives. */
  private readonly onClientError = (err: Error): void => {
    if (!this.closed) this.enterDegraded(err.message);
  };

  private readonly onClientReady = (): void => {
    if (!this.closed) this.leaveDegraded();
  };

  private enterDegraded(reason: string): void {
    if (this.isDegraded) return;
    this.isDegraded = true;
    this.metrics.degraded.set(1);
    this.logger.warn(
      { err: reason },
      'Redis unreachable: rate limits degraded to per-process insurance limiters until it is back',
    );
  }

  private leaveDegraded(): void {
    if (!this.isDegraded) return;
    this.isDegraded = false;
    this.metrics.degraded.set(0);
    this.logger.info('Redis reachable again: shared rate limits resumed');
  }
}

export function createLimits(options: CreateLimitsOptions): Limits {
  return new RedisBackedLimits(options.config, options.logger, options.redis, options.registry);
}
