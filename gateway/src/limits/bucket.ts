import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type Redis from 'ioredis';
import { toDecision, type LimitDecision } from './decision';

export const WINDOW_SECONDS = 60;

/** What a bucket reports back so the owner can track Redis health in one place. */
export interface StoreHealth {
  /** Redis counted a request. */
  onStoreSuccess(): void;
  /** Redis failed or did not answer in time, and the insurance limiter answered instead. */
  onStoreFailure(reason: string): void;
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

/**
 * The in-process limiter rate-limiter-flexible falls back on when a Redis call fails or outlasts
 * its bound (its `insuranceLimiter`): it tells the bucket each time it answers.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onAnswer: () => void,
  ) {
    super(options);
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.onAnswer();
    return super.consume(key, points, options);
  }
}

/**
 * One limit (e.g. "writes per key"): a fixed 60 s window opened by the first request, counted in
 * Redis so every replica shares it. rate-limiter-flexible bounds each Redis call (RLWrapperTimeouts)
 * and answers from an in-process insurance limiter holding 1/replicas of the points when Redis
 * fails; without Redis that limiter is the bucket.
 */
export class Bucket {
  readonly name: string;
  readonly points: number;
  private readonly limiter: RateLimiterAbstract;
  /**
   * What this process knows of a key without asking Redis: the insurance limiter's own count
   * while Redis is down, and Redis's word that a key has used its last point, copied in when
   * Redis says so (blockedMs reads both).
   */
  private readonly insurance: RateLimiterMemory;
  private readonly insurancePoints: number;
  private readonly shared: boolean;
  private readonly inMemoryBlock: boolean;
  private readonly health: StoreHealth;
  /** Requests the insurance limiter answered; one that moved it during a consume was not Redis's answer. */
  private fallbacks = 0;

  constructor(options: BucketOptions) {
    this.name = options.name;
    this.points = options.points;
    this.health = options.health;
    this.shared = options.redis !== undefined;
    this.inMemoryBlock = options.inMemoryBlock;
    this.insurancePoints = Math.max(1, Math.floor(options.points / options.replicas));
    const keyPrefix = `${options.keyPrefix}:${options.name}`;
    const insuranceOptions = { keyPrefix, points: this.insurancePoints, duration: WINDOW_SECONDS };
    if (!options.redis) {
      this.insurance = new RateLimiterMemory(insuranceOptions);
      this.limiter = this.insurance;
      return;
    }
    this.insurance = new InsuranceLimiter(insuranceOptions, () => {
      this.fallbacks += 1;
      this.health.onStoreFailure(`a Redis call failed or took over ${options.timeoutMs} ms`);
    });
    this.limiter = new RLWrapperTimeouts({
      limiter: new RateLimiterRedis({
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
      }),
      // ioredis' commandTimeout already bounds a call; this also covers a client configured without one.
      timeoutMs: options.timeoutMs,
      insuranceLimiter: this.insurance,
    });
  }

  async consume(key: string): Promise<LimitDecision> {
    const fallbacks = this.fallbacks;
    let allowed = true;
    let outcome: RateLimiterRes;
    try {
      outcome = await this.limiter.consume(key);
    } catch (err) {
      // A refusal is a RateLimiterRes; a store failure never gets here (the insurance limiter answers it).
      if (!(err instanceof RateLimiterRes)) throw err;
      allowed = false;
      outcome = err;
    }
    // A key blocked in this process's memory is refused without a count (consumedPoints 0):
    // only a counted answer that the insurance limiter did not give is Redis's.
    if (this.shared && this.fallbacks === fallbacks && outcome.consumedPoints > 0) await this.answeredByRedis(key, outcome);
    return toDecision(allowed, this.points, outcome);
  }

  /**
   * Milliseconds this key stays refused, known without asking Redis: Redis said it used its last
   * point (the in-memory block), or the insurance limiter's count during an outage. 0 = not known
   * to be over (another replica may know better; the next consume asks Redis).
   */
  async blockedMs(key: string): Promise<number> {
    const known = await this.insurance.get(key);
    return known && known.consumedPoints >= this.insurancePoints && known.msBeforeNext > 0 ? known.msBeforeNext : 0;
  }

  refusal(ms: number): LimitDecision {
    return toDecision(false, this.points, { remainingPoints: 0, msBeforeNext: ms });
  }

  /** Redis is reachable; a key it says is used up is blocked here too, as the store blocks it in memory. */
  private async answeredByRedis(key: string, outcome: RateLimiterRes): Promise<void> {
    this.health.onStoreSuccess();
    if (this.inMemoryBlock && outcome.consumedPoints >= this.points && outcome.msBeforeNext > 0) {
      await this.insurance.block(key, outcome.msBeforeNext / 1000);
    }
  }
}
