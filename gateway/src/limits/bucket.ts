import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type Redis from 'ioredis';
import { toDecision, type LimitDecision } from './decision';

export const WINDOW_SECONDS = 60;

/** What a bucket reports back so the owner can track Redis health in one place. */
export interface StoreHealth {
  onStoreSuccess(): void;
  onStoreFailure(err: Error): void;
}

export interface BucketOptions {
  name: string;
  points: number;
  redis?: Redis;
  keyPrefix: string;
  replicas: number;
  timeoutMs: number;
  inMemoryBlock: boolean;
  health: StoreHealth;
}

/** rate-limiter-flexible has it but does not declare it in its types. */
interface InMemoryBlockLookup {
  getInMemoryBlockMsBeforeExpire(rlKey: string): number;
}

class StoreTimeoutError extends Error {
  constructor(ms: number) {
    super(`redis did not answer within ${ms} ms`);
  }
}

/**
 * One limit (e.g. "writes per key"): a fixed 60 s window opened by the first request, counted in
 * Redis so every replica shares it, with an in-process insurance limiter holding 1/replicas of the
 * points for when Redis fails.
 */
export class Bucket {
  readonly name: string;
  readonly points: number;
  private readonly store?: RateLimiterRedis;
  private readonly insurance: RateLimiterMemory;
  private readonly insurancePoints: number;
  private readonly timeoutMs: number;
  private readonly health: StoreHealth;

  constructor(options: BucketOptions) {
    this.name = options.name;
    this.points = options.points;
    this.timeoutMs = options.timeoutMs;
    this.health = options.health;
    this.insurancePoints = Math.max(1, Math.floor(options.points / options.replicas));
    const keyPrefix = `${options.keyPrefix}:${options.name}`;
    this.insurance = new RateLimiterMemory({ keyPrefix, points: this.insurancePoints, duration: WINDOW_SECONDS });
    if (options.redis) {
      this.store = new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix,
        points: options.points,
        duration: WINDOW_SECONDS,
        // Once a key has used its last point it stays blocked in this process until its window
        // ends (no inMemoryBlockDuration = block for the rest of the window), so a flooding client
        // costs no further Redis calls here (issue 4 item 5).
        inMemoryBlockOnConsumed: options.inMemoryBlock ? options.points : 0,
        // A disconnected client fails at once instead of queueing the command.
        rejectIfRedisNotReady: true,
      });
    }
  }

  async consume(key: string): Promise<LimitDecision> {
    if (!this.store) return this.consumeInsurance(key);
    // Checked here rather than left to the store so that a refusal below is known to be Redis's
    // own answer, which tells us Redis is healthy.
    const blocked = this.inMemoryBlockMs(this.store, key);
    if (blocked > 0) return this.refusal(blocked);
    let outcome: RateLimiterRes;
    try {
      outcome = await this.bounded(this.store.consume(key));
    } catch (err) {
      // A refusal is a RateLimiterRes; anything else is the store failing.
      if (err instanceof RateLimiterRes) {
        this.health.onStoreSuccess();
        return toDecision(false, this.points, err);
      }
      this.health.onStoreFailure(err instanceof Error ? err : new Error(String(err)));
      return this.consumeInsurance(key);
    }
    this.health.onStoreSuccess();
    return toDecision(true, this.points, outcome);
  }

  /**
   * Milliseconds this key stays refused, known without asking Redis: the in-memory block set when
   * it used its last point here, or the insurance limiter's count during an outage. 0 = not known
   * to be over (another replica may know better; the next consume asks Redis).
   */
  async blockedMs(key: string): Promise<number> {
    if (this.store) {
      const ms = this.inMemoryBlockMs(this.store, key);
      if (ms > 0) return ms;
    }
    const local = await this.insurance.get(key);
    if (local && local.consumedPoints >= this.insurancePoints && local.msBeforeNext > 0) return local.msBeforeNext;
    return 0;
  }

  refusal(ms: number): LimitDecision {
    return toDecision(false, this.points, { remainingPoints: 0, msBeforeNext: ms });
  }

  private inMemoryBlockMs(store: RateLimiterRedis, key: string): number {
    return (store as unknown as InMemoryBlockLookup).getInMemoryBlockMsBeforeExpire(store.getKey(key));
  }

  private async consumeInsurance(key: string): Promise<LimitDecision> {
    try {
      const outcome = await this.insurance.consume(key);
      return toDecision(true, this.points, outcome);
    } catch (err) {
      if (err instanceof RateLimiterRes) return toDecision(false, this.points, err);
      throw err;
    }
  }

  /** ioredis' commandTimeout already bounds a call; this also covers a client configured without one. */
  private bounded<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StoreTimeoutError(this.timeoutMs)), this.timeoutMs);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }
}
