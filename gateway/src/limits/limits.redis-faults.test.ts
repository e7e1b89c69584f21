import type Redis from 'ioredis';
import { Registry } from 'prom-client';
import { createLimits, createRedisForLimits, waitForRedis, type Limits, type LimitsConfig } from './index';
import { captureLogger } from './testing/capture-logger';
import { repeat, uniquePrefix } from './testing/fixtures';
import { startOwnRedisServer, waitUntil, type OwnRedisServer } from '@propdesk/kit/testing';

// A Redis of this suite's own: it gets stopped, paused and its commands counted.
let server: OwnRedisServer;
const clients: Redis[] = [];
const opened: Limits[] = [];

beforeAll(async () => {
  server = await startOwnRedisServer();
});

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  await server.stop();
});

async function openLimits(overrides: Partial<LimitsConfig> = {}, commandTimeoutMs?: number) {
  const log = captureLogger();
  const redis = createRedisForLimits(server.url, log.logger, commandTimeoutMs === undefined ? {} : { commandTimeoutMs });
  clients.push(redis);
  expect(await waitForRedis(redis)).toBe(true);
  const registry = new Registry();
  const config: LimitsConfig = { readPerMin: 1200, writePerMin: 120, ipPerMin: 60, keyPrefix: uniquePrefix('faults'), ...overrides };
  const limits = createLimits({ config, logger: log.logger, redis, registry });
  opened.push(limits);
  return { limits, registry, redis, ...log };
}

async function gauge(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('propdesk_rate_limit_degraded')?.get();
  return metric?.values[0]?.value ?? NaN;
}

async function counter(registry: Registry, name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? NaN;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

const eventually = (check: () => boolean, timeoutMs = 5_000) => waitUntil(check, { timeoutMs, intervalMs: 20 });

describe('a flooding client costs almost no Redis calls', () => {
  it('a key at 10x its limit is blocked in memory after its last point', async () => {
    const { limits } = await openLimits({ writePerMin: 120 });
    const before = (await server.commandCount()).roundTrips;
    const decisions = await repeat(1200, () => limits.onValid('flooder', true));
    const commands = (await server.commandCount()).roundTrips - before;
    expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
    // One atomic script per allowed request, none once the key is blocked here.
    expect(commands).toBeLessThanOrEqual(125);
  });

  it('without the in-memory block every refused request would be a Redis call', async () => {
    const { limits } = await openLimits({ writePerMin: 120, inMemoryBlock: false });
    const before = (await server.commandCount()).roundTrips;
    await repeat(1200, () => limits.onValid('flooder', true));
    expect((await server.commandCount()).roundTrips - before).toBeGreaterThanOrEqual(1200);
  });

  it('an IP over its limit is refused before the lookup without any Redis call', async () => {
    const { limits } = await openLimits({ ipPerMin: 60 });
    await repeat(60, () => limits.onInvalid('203.0.113.9'));
    const before = (await server.commandCount()).roundTrips;
    const verdicts = await repeat(500, () => limits.beforeLookup('203.0.113.9', false));
    expect(verdicts.filter((v) => v.action === 'refuse').length).toBeGreaterThanOrEqual(499);
    expect((await server.commandCount()).roundTrips - before).toBe(0);
  });
});

describe('when Redis fails', () => {
  it('a hung Redis costs each request at most the bounded wait, then the insurance limiter answers', async () => {
    const { limits, registry, warnings } = await openLimits({ writePerMin: 120, redisTimeoutMs: 30 });
    await limits.onValid('slow', true);
    server.pause();
    try {
      for (let i = 0; i < 10; i += 1) {
        const { value, ms } = await timed(() => limits.onValid('slow', true));
        expect(value.allowed).toBe(true);
        expect(ms).toBeLessThan(100);
      }
      expect(limits.degraded).toBe(true);
      expect(await gauge(registry)).toBe(1);
      expect(await counter(registry, 'propdesk_rate_limit_fallbacks_total')).toBe(10);
      expect(warnings()).toHaveLength(1);
    } finally {
      server.resume();
    }
    await eventually(() => {
      void limits.onValid('slow-probe', true);
      return !limits.degraded;
    });
  });

  it('a stopped Redis degrades the limits, not the API, and shared limiting resumes when it is back', async () => {
    // This case is about a stopped Redis, not a slow one: generous command timeouts, so a slow
    // command on a busy machine (the 260-call burst below) is not taken for a second outage.
    const shared = { writePerMin: 120, replicas: 2, keyPrefix: uniquePrefix('outage'), redisTimeoutMs: 1_000 };
    const a = await openLimits(shared, 1_000);
    const b = await openLimits(shared, 1_000);
    expect((await a.limits.onValid('k1', true)).allowed).toBe(true);

    await server.stop();

    // No error, no hang: every call answers within 100 ms under the insurance limiter, which
    // gives each of the two replicas half of the bucket.
    const during = [];
    for (let i = 0; i < 80; i += 1) {
      const { value, ms } = await timed(() => a.limits.onValid('k2', true));
      expect(ms).toBeLessThan(100);
      during.push(value);
    }
    expect(during.filter((d) => d.allowed)).toHaveLength(60);
    expect(during[79]).toMatchObject({ allowed: false, remaining: 0 });
    expect(during[79].retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const ipDuringOutage = await timed(() => a.limits.onInvalid('203.0.113.50'));
    expect(ipDuringOutage.value.allowed).toBe(true);
    expect(ipDuringOutage.ms).toBeLessThan(100);

    expect(a.limits.degraded).toBe(true);
    expect(await gauge(a.registry)).toBe(1);
    expect(await counter(a.registry, 'propdesk_rate_limit_fallbacks_total')).toBeGreaterThanOrEqual(80);
    // Reconnection attempts keep failing during the outage (two more here); still a single warning.
    let reconnections = 0;
    a.redis.on('reconnecting', () => (reconnections += 1));
    await eventually(() => reconnections >= 2);
    await a.limits.onValid('k2', true);
    expect(a.warnings()).toHaveLength(1);
    expect(a.warnings()[0].msg).toMatch(/Redis unreachable/);

    await server.restart();
    await eventually(() => !a.limits.degraded && !b.limits.degraded, 10_000);
    expect(await gauge(a.registry)).toBe(0);
    expect(a.lines.some((l) => /shared rate limits resumed/.test(l.msg))).toBe(true);

    // Shared again: the two instances split one Redis bucket exactly.
    const decisions = await Promise.all(
      Array.from({ length: 260 }, (_, i) => (i % 2 === 0 ? a : b).limits.onValid('after-outage', true)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
    expect(a.limits.degraded || b.limits.degraded).toBe(false);
    expect(a.warnings()).toHaveLength(1);
  });
});
