import { envInt, z } from '@propdesk/kit';

/**
 * The environment variables of the limits (SPEC section 3). A zod object so the gateway's own
 * schema can merge it: `gatewaySchema.merge(limitsConfigSchema)`.
 */
export const limitsConfigSchema = z.object({
  RATE_LIMIT_READ_PER_MIN: envInt(1200, 1),
  RATE_LIMIT_WRITE_PER_MIN: envInt(120, 1),
  RATE_LIMIT_IP_PER_MIN: envInt(60, 1),
  RATE_LIMIT_LOGIN_PER_MIN: envInt(20, 1),
  /** How many gateway replicas share the limits; the insurance limiter gives each 1/replicas of a bucket. */
  RATE_LIMIT_REPLICAS: envInt(1, 1, 10_000),
  /** The longest a request waits on Redis before the in-process insurance limiter answers. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: envInt(50, 1, 5_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});

export type LimitsEnv = z.infer<typeof limitsConfigSchema>;

export interface LimitsConfig {
  readPerMin: number;
  writePerMin: number;
  ipPerMin: number;
  /** Per-IP attempts per minute at the executor login (onLoginAttempt); default 20. */
  loginPerMin?: number;
  /** For the insurance limiter: each replica allows 1/replicas of a bucket while Redis is down. */
  replicas?: number;
  /** Bound on every Redis call; default 50 ms. */
  redisTimeoutMs?: number;
  /** Prefix of every Redis key; tests use a unique one per run. Default `propdesk:rl`. */
  keyPrefix?: string;
  /** Block a key in process memory once it is over (default true); false only to measure its effect. */
  inMemoryBlock?: boolean;
}

export function limitsConfigFromEnv(env: LimitsEnv): LimitsConfig {
  return {
    readPerMin: env.RATE_LIMIT_READ_PER_MIN,
    writePerMin: env.RATE_LIMIT_WRITE_PER_MIN,
    ipPerMin: env.RATE_LIMIT_IP_PER_MIN,
    loginPerMin: env.RATE_LIMIT_LOGIN_PER_MIN,
    replicas: env.RATE_LIMIT_REPLICAS,
    redisTimeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS,
  };
}
