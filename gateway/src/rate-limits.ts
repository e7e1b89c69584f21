import type { Registry } from 'prom-client';
import type { Logger } from '@propdesk/kit';
import type { GatewayConfig } from './config';
import { createLimits, createRedisForLimits, limitsConfigFromEnv, waitForRedis, type LimitDecision, type Limits } from './limits';

export type { LimitDecision, Limits };

export interface GatewayLimits {
  limits: Limits;
  close(): Promise<void>;
}

/** The single place that builds the limits: shared in Redis when REDIS_URL is set, else in memory. */
export async function createGatewayLimits(config: GatewayConfig, logger: Logger, registry: Registry): Promise<GatewayLimits> {
  const redis = config.REDIS_URL ? createRedisForLimits(config.REDIS_URL, logger) : undefined;
  // Without Redis the limits module itself warns that counts are per process.
  if (redis) await waitForRedis(redis);
  const limits = createLimits({
    config: { ...limitsConfigFromEnv(config), ...(config.RATE_LIMIT_KEY_PREFIX ? { keyPrefix: config.RATE_LIMIT_KEY_PREFIX } : {}) },
    logger,
    redis,
    registry,
  });
  return {
    limits,
    async close() {
      await limits.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
