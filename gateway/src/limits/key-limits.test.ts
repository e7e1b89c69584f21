/**
 * Issue 14 item 4 in the limits module: a key with its own limits is counted against them on the
 * same Redis counter as before, with the same commands per request, and other keys keep theirs.
 */
import { Registry } from 'prom-client';
import type Redis from 'ioredis';
import { createLimits, createRedisForLimits, waitForRedis, type Limits } from './index';
import { captureLogger } from './testing/capture-logger';
import { repeat, uniquePrefix } from './testing/fixtures';
import { startOwnRedisServer, type OwnRedisServer } from '@propdesk/kit/testing';

let server: OwnRedisServer;
let redis: Redis;
let limits: Limits;
const prefix = uniquePrefix('key-limits');

beforeAll(async () => {
  server = await startOwnRedisServer();
  const { logger } = captureLogger();
  // These tests count in Redis: a command slower than the production 50 ms (a busy CI machine)
  // would be answered by the per-process insurance limiter and change the counts, as in
  // limits.test.ts. The fallback itself is tested in limits.redis-faults.test.ts.
  redis = createRedisForLimits(server.url, logger, { commandTimeoutMs: 2000 });
  if (!(await waitForRedis(redis))) throw new Error('own Redis did not come up');
  limits = createLimits({
    config: { readPerMin: 1200, writePerMin: 5, ipPerMin: 60, keyPrefix: prefix, redisTimeoutMs: 2000 },
    logger,
    redis,
    registry: new Registry(),
  });
});

afterAll(async () => {
  await limits?.close();
  await redis?.quit();
  await server?.stop();
});

let seq = 0;
const freshKey = () => `key_${(seq += 1)}`;

describe("a key's own limits", () => {
  it('counts the key against its own limit, shows it in the decision, and leaves other keys on the default', async () => {
    const own = freshKey();
    const other = freshKey();
    const decisions = await repeat(4, () => limits.onValid(own, true, { writePerMin: 3 }));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[0]).toMatchObject({ limit: 3, remaining: 2 });
    expect(decisions[3]).toMatchObject({ limit: 3, remaining: 0 });
    expect(await limits.onValid(other, true)).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
    // Reads have their own limit, and a key with only a write limit reads at the default.
    expect(await limits.onValid(own, false, { writePerMin: 3 })).toMatchObject({ allowed: true, limit: 1200, remaining: 1199 });
    expect(await limits.onValid(freshKey(), false, { readPerMin: 2 })).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
  });

  it('lets a key above the default through up to its own limit', async () => {
    const generous = freshKey();
    const decisions = await repeat(12, () => limits.onValid(generous, true, { writePerMin: 10 }));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('keeps counting the same window when the limit changes, in either direction', async () => {
    const key = freshKey();
    // Three counted in Redis; the fourth is refused by the in-memory block without reaching it.
    await repeat(4, () => limits.onValid(key, true, { writePerMin: 3 }));
    // Raised: the three counted requests still count.
    expect(await limits.onValid(key, true, { writePerMin: 10 })).toMatchObject({ allowed: true, limit: 10, remaining: 6 });
    // Lowered below what was used: refused at once.
    expect(await limits.onValid(key, true, { writePerMin: 4 })).toMatchObject({ allowed: false, limit: 4 });
    // Back to the default (5): the same counter.
    expect((await limits.onValid(key, true)).allowed).toBe(false);
  });

  it('costs the same Redis commands per request as a key on the default limits', async () => {
    // Warm both paths (the limiter's script is loaded once per Redis).
    await limits.onValid(freshKey(), false);
    await limits.onValid(freshKey(), false, { readPerMin: 500 });
    const count = async (own?: { readPerMin: number }) => {
      const key = freshKey();
      const before = await server.commandCount();
      await repeat(50, () => limits.onValid(key, false, own));
      const after = await server.commandCount();
      return { roundTrips: after.roundTrips - before.roundTrips, executed: after.executed - before.executed };
    };
    const standard = await count();
    const own = await count({ readPerMin: 500 });
    expect(standard.roundTrips).toBe(50);
    expect(own).toEqual(standard);
  });
});
