import path from 'node:path';
import type { Logger } from '@propdesk/kit';
import { ROOT } from '../support/stack';

export { startOwnRedisServer, type CommandCount, type OwnRedisServer } from '@propdesk/kit/testing';

/**
 * The gateway's limits module, loaded from the gateway's build at run time (`npm run bench` builds
 * everything first). The bench workspace does not reference the gateway project, so the few
 * signatures used here are restated. A Redis server of the bench's own comes from the kit's
 * testing entry point.
 */
export interface Decision {
  allowed: boolean;
}

export interface BenchLimits {
  onValid(keyId: string, write: boolean, own?: { readPerMin?: number; writePerMin?: number }): Promise<Decision>;
  close(): Promise<void>;
}

export interface RedisClient {
  quit(): Promise<unknown>;
}

interface LimitsModule {
  createLimits(options: {
    config: { readPerMin: number; writePerMin: number; ipPerMin: number; keyPrefix?: string; inMemoryBlock?: boolean };
    logger: Logger;
    redis?: RedisClient;
  }): BenchLimits;
  createRedisForLimits(url: string, logger: Logger): RedisClient;
  waitForRedis(redis: RedisClient, timeoutMs?: number): Promise<boolean>;
}

const DIST = path.join(ROOT, 'gateway', 'dist', 'limits');

export function loadLimitsModule(): LimitsModule {
  return require(path.join(DIST, 'index.js')) as LimitsModule;
}
