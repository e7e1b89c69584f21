import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { createLimits, createRedisForLimits, waitForRedis, type Limits, type LimitsConfig } from './index';
import { captureLogger } from './testing/capture-logger';
import { testRedisUrl, waitUntil } from '@propdesk/kit/testing';
import { deleteKeys, repeat, uniquePrefix } from './testing/fixtures';

// The shared local Redis (REDIS_URL when set), as the gateway uses it.
const REDIS_URL = testRedisUrl();
const prefix = uniquePrefix('limits');
const clients: Redis[] = [];
const opened: Limits[] = [];

const config = (overrides: Partial<LimitsConfig> = {}): LimitsConfig => ({
  readPerMin: 1200,
  writePerMin: 120,
  ipPerMin: 60,
  keyPrefix: prefix,
  // These tests count in Redis: a command slower than the production 50 ms (a busy CI machine)
  // would be answered by the per-process insurance limiter and change the counts (the client's
  // commandTimeout below, the bucket's bound here). The fallback itself is tested in
  // limits.redis-faults.test.ts.
  redisTimeoutMs: 2000,
  ...overrides,
});

async function openLimits(overrides: Partial<LimitsConfig> = {}): Promise<Limits> {
  const { logger } = captureLogger();
  const redis = createRedisForLimits(REDIS_URL, logger, { commandTimeoutMs: 2000 });
  clients.push(redis);
  if (!(await waitForRedis(redis))) throw new Error(`no Redis at ${REDIS_URL}`);
  const limits = createLimits({ config: config(overrides), logger, redis, registry: new Registry() });
  opened.push(limits);
  return limits;
}

let keySeq = 0;
const freshKey = () => `key_${(keySeq += 1)}`;
const allowedCount = (decisions: Array<{ allowed: boolean }>) => decisions.filter((d) => d.allowed).length;

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  if (clients[0]) await deleteKeys(clients[0], prefix);
  await Promise.all(clients.map((c) => c.quit()));
});

describe('per-key limits counted in Redis', () => {
  it('130 writes on one key in a minute let exactly 120 through', async () => {
    const limits = await openLimits();
    const key = freshKey();
    const decisions = await repeat(130, () => limits.onValid(key, true));
    expect(allowedCount(decisions)).toBe(120);
    expect(decisions.slice(0, 120).every((d) => d.allowed)).toBe(true);
  });

  it('1,230 reads on one key in a minute let exactly 1,200 through', async () => {
    const limits = await openLimits();
    const key = freshKey();
    const decisions = await repeat(1230, () => limits.onValid(key, false));
    expect(allowedCount(decisions)).toBe(1200);
  });

  it('the headers count down from the limit and refusals point at the end of the window', async () => {
    const limits = await openLimits({ writePerMin: 3 });
    const key = freshKey();
    const [first, second, third, fourth] = await repeat(4, () => limits.onValid(key, true));
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60, retryAfterSeconds: 60 });
    expect(second).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
    expect(third).toMatchObject({ allowed: true, limit: 3, remaining: 0 });
    expect(fourth.allowed).toBe(false);
    expect(fourth.remaining).toBe(0);
    expect(fourth.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(fourth.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(fourth.resetSeconds).toBe(fourth.retryAfterSeconds);
  });

  it('the window is 60 seconds from the request that opened it, in Redis', async () => {
    const limits = await openLimits({ writePerMin: 5 });
    const key = freshKey();
    await limits.onValid(key, true);
    const ttl = await clients[clients.length - 1].pttl(`${prefix}:write:${key}`);
    expect(ttl).toBeGreaterThan(58_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('reads and writes of a key are separate buckets, and one key never touches another', async () => {
    const limits = await openLimits({ writePerMin: 5, readPerMin: 7 });
    const flooded = freshKey();
    const quiet = freshKey();
    await repeat(20, () => limits.onValid(flooded, true));
    expect((await limits.onValid(flooded, true)).allowed).toBe(false);
    expect(await limits.onValid(flooded, false)).toMatchObject({ allowed: true, limit: 7, remaining: 6 });
    expect(await limits.onValid(quiet, true)).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
  });

  it('two gateway instances sharing Redis let exactly 120 writes through in total', async () => {
    const a = await openLimits();
    const b = await openLimits();
    const key = freshKey();
    // Interleaved and concurrent, as two replicas behind a load balancer would see them.
    const decisions = await Promise.all(
      Array.from({ length: 260 }, (_, i) => (i % 2 === 0 ? a : b).onValid(key, true)),
    );
    expect(allowedCount(decisions)).toBe(120);
    expect(a.degraded || b.degraded).toBe(false);
  });
});

describe('per-IP limit of requests without a valid key', () => {
  it('an IP gets 60 failed authentications a minute; after that its invalid requests are refused before the lookup', async () => {
    const limits = await openLimits();
    const ip = '198.51.100.10';
    const decisions = await repeat(60, () => limits.onInvalid(ip));
    expect(allowedCount(decisions)).toBe(60);
    expect(decisions[0]).toMatchObject({ limit: 60, remaining: 59 });

    const verdict = await limits.beforeLookup(ip, false);
    // The trickle may let the very first one through to the key store; the next is refused.
    const next = verdict.action === 'lookup' ? await limits.beforeLookup(ip, false) : verdict;
    expect(next.action).toBe('refuse');
    expect(next.decision).toMatchObject({ allowed: false, limit: 60, remaining: 0 });
    expect(next.decision?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await limits.onInvalid(ip)).allowed).toBe(false);
  });

  it('a valid cached key from a flooded IP is never refused by the IP limit', async () => {
    const limits = await openLimits({ ipPerMin: 5 });
    const ip = '198.51.100.11';
    await repeat(10, () => limits.onInvalid(ip));
    for (let i = 0; i < 20; i += 1) expect(await limits.beforeLookup(ip, true)).toEqual({ action: 'lookup' });
    expect((await limits.onValid(freshKey(), false)).allowed).toBe(true);
  });

  it('a flooded IP reaches the key store at most about once a second, so a new valid key still gets verified', async () => {
    const limits = await openLimits({ ipPerMin: 5 });
    const ip = '198.51.100.12';
    await repeat(10, () => limits.onInvalid(ip));
    const verdicts = await repeat(200, () => limits.beforeLookup(ip, false));
    const lookups = verdicts.filter((v) => v.action === 'lookup').length;
    expect(lookups).toBeLessThanOrEqual(1);
    // Within the next second or so one lookup goes through again, and only one.
    await waitUntil(async () => (await limits.beforeLookup(ip, false)).action === 'lookup', { timeoutMs: 2000, what: 'the next lookup let through' });
    expect((await limits.beforeLookup(ip, false)).action).toBe('refuse');
  });

  it('an IP below its limit is looked up without a Redis call and other IPs are untouched by a flood', async () => {
    const limits = await openLimits({ ipPerMin: 5 });
    await repeat(10, () => limits.onInvalid('198.51.100.13'));
    expect(await limits.beforeLookup('198.51.100.14', false)).toEqual({ action: 'lookup' });
    expect((await limits.onInvalid('198.51.100.14')).allowed).toBe(true);
  });

  it('the executor login limit is per IP and stricter', async () => {
    const limits = await openLimits({ loginPerMin: 20 });
    const decisions = await repeat(25, () => limits.onLoginAttempt!('198.51.100.15'));
    expect(allowedCount(decisions)).toBe(20);
    expect(decisions[24]).toMatchObject({ allowed: false, limit: 20 });
  });
});

describe('without Redis', () => {
  it('limits per process and says so once at boot', async () => {
    const { logger, warnings } = captureLogger();
    const limits = createLimits({ config: config({ writePerMin: 10 }), logger });
    const key = freshKey();
    expect(allowedCount(await repeat(15, () => limits.onValid(key, true)))).toBe(10);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0].msg).toMatch(/REDIS_URL is not set/);
    expect(limits.degraded).toBe(false);
    await limits.close();
  });
});
