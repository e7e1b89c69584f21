import path from 'node:path';
import type { Logger } from '@propdesk/kit';
import { ROOT } from '../support/stack';

/**
 * The gateway's limits module and its own-Redis helper, loaded from the gateway's build at run time
 * (`npm run bench` builds everything first). The bench workspace does not reference the gateway
 * project, so the few signatures used here are restated.
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

export interface CommandCount {
  roundTrips: number;
  executed: number;
}

export interface OwnRedisServer {
  url: string;
  stop(): Promise<void>;
  commandCount(): Promise<CommandCount>;
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

interface RedisServerModule {
  startOwnRedisServer(): Promise<OwnRedisServer>;
}

const DIST = path.join(ROOT, 'gateway', 'dist', 'limits');

export function loadLimitsModule(): LimitsModule {
  return require(path.join(DIST, 'index.js')) as LimitsModule;
}

export function startOwnRedisServer(): Promise<OwnRedisServer> {
  return (require(path.join(DIST, 'testing', 'redis-server.js')) as RedisServerModule).startOwnRedisServer();
}
