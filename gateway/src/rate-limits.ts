import type { Logger } from '@propdesk/kit';
import type { GatewayConfig } from './config';
import { createFallbackLimits, type LimitDecision, type Limits } from './limits-fallback';

export type { LimitDecision, Limits };

/** The single place that picks the limits implementation. */
export function createGatewayLimits(config: GatewayConfig, logger: Logger): Limits {
  return createFallbackLimits({
    config: { readPerMin: config.RATE_LIMIT_READ_PER_MIN, writePerMin: config.RATE_LIMIT_WRITE_PER_MIN, ipPerMin: config.RATE_LIMIT_IP_PER_MIN },
    logger,
  });
}
