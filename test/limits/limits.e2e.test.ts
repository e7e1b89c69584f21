import { randomBytes } from 'node:crypto';
import { startOwnRedisServer, type OwnRedisServer } from '@propdesk/kit/testing';
import { startLimitsStack, type Answer, type LimitsStack, type RunningGateway } from './gateways';

/**
 * Issue 4 through HTTP: two gateway replicas sharing one Redis of the suite's own (so it can be
 * stopped), low limits to keep the suite fast, then one run at the real 120 / 1,200.
 */
const LOW = { RATE_LIMIT_WRITE_PER_MIN: '12', RATE_LIMIT_READ_PER_MIN: '30', RATE_LIMIT_IP_PER_MIN: '10' };

let redis: OwnRedisServer;
let stack: LimitsStack;
let a: RunningGateway;
let b: RunningGateway;

const prefix = () => `e2e:${process.pid}:${randomBytes(4).toString('hex')}`;
const passed = (answers: Answer[]) => answers.filter((r) => r.status !== 429).length;
const header = (answer: Answer, name: string) => Number(answer.headers[name.toLowerCase()]);

beforeAll(async () => {
  redis = await startOwnRedisServer();
  stack = await startLimitsStack();
  const shared = { ...LOW, REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: prefix() };
  a = await stack.startGateway(shared);
  b = await stack.startGateway(shared);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

async function writes(token: string, count: number, gateways: RunningGateway[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i += 1) {
    const email = `t${randomBytes(5).toString('hex')}@example.com`;
    answers.push(await stack.call(gateways[i % gateways.length], 'POST', '/v1/traders', { token, body: { name: 'Trader', email } }));
  }
  return answers;
}

async function reads(token: string, count: number, gateways: RunningGateway[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i += 1) {
    answers.push(await stack.call(gateways[i % gateways.length], 'GET', '/v1/accounts?limit=1', { token }));
  }
  return answers;
}

describe('per-key limits across two gateway replicas sharing Redis', () => {
  it('a key gets exactly its write limit in total, whichever replica serves it', async () => {
    const token = await stack.createKey();
    const answers = await writes(token, 20, [a, b]);
    expect(passed(answers)).toBe(12);
    expect(answers.slice(0, 12).every((r) => r.status === 201)).toBe(true);
    expect(header(answers[0], 'RateLimit-Limit')).toBe(12);
    expect(header(answers[0], 'RateLimit-Remaining')).toBe(11);
    expect(header(answers[0], 'RateLimit-Reset')).toBeGreaterThanOrEqual(59);
    const refused = answers[15];
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('rate_limited');
    expect(header(refused, 'Retry-After')).toBeGreaterThanOrEqual(1);
    expect(header(refused, 'Retry-After')).toBeLessThanOrEqual(60);
    expect(header(refused, 'RateLimit-Remaining')).toBe(0);
  });

  it('reads have their own bucket, and a second key is untouched by the first one\'s burst', async () => {
    const busy = await stack.createKey();
    const quiet = await stack.createKey();
    expect(passed(await writes(busy, 14, [a, b]))).toBe(12);
    const busyReads = await reads(busy, 35, [a, b]);
    expect(passed(busyReads)).toBe(30);
    expect(busyReads[0].status).toBe(200);

    const untouched = await stack.call(b, 'GET', '/v1/accounts?limit=1', { token: quiet });
    expect(untouched.status).toBe(200);
    expect(header(untouched, 'RateLimit-Limit')).toBe(30);
    expect(header(untouched, 'RateLimit-Remaining')).toBe(29);
  });
});

describe('requests without a valid key, limited per client IP', () => {
  // Its own source address, so the flooded IP bucket does not spill into the other tests.
  const from = '127.0.0.7';

  it('a flood of invalid keys from one IP gets 429s, a spoofed X-Forwarded-For changes nothing, valid keys keep working', async () => {
    const valid = await stack.createKey();
    for (const gateway of [a, b]) expect((await stack.call(gateway, 'GET', '/v1/accounts?limit=1', { token: valid, from })).status).toBe(200);

    const flood: Answer[] = [];
    for (let i = 0; i < 40; i += 1) {
      flood.push(
        await stack.call(i % 2 === 0 ? a : b, 'GET', '/v1/accounts', {
          token: `pfx_live_${randomBytes(20).toString('hex')}`,
          from,
          // TRUST_PROXY is unset: the socket address counts, not what the client claims.
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        }),
      );
    }
    const unauthorized = flood.filter((r) => r.status === 401).length;
    const limited = flood.filter((r) => r.status === 429);
    // 10 per minute, plus at most one trickled lookup per replica per second.
    expect(unauthorized).toBeGreaterThanOrEqual(10);
    expect(unauthorized).toBeLessThanOrEqual(14);
    expect(limited.length).toBe(40 - unauthorized);
    expect(limited[0].body.error?.code).toBe('rate_limited');
    expect(header(limited[0], 'Retry-After')).toBeGreaterThanOrEqual(1);
    expect(header(limited[0], 'RateLimit-Limit')).toBe(10);

    // Keys the replicas already know are never refused by the IP limit.
    for (const gateway of [a, b]) {
      const answer = await stack.call(gateway, 'GET', '/v1/accounts?limit=1', { token: valid, from });
      expect(answer.status).toBe(200);
      expect(header(answer, 'RateLimit-Limit')).toBe(30);
    }
    // Another address is unaffected.
    expect((await stack.call(a, 'GET', '/v1/accounts', { token: 'pfx_live_nope', from: '127.0.0.8' })).status).toBe(401);
  });

  it('a brand-new valid key is served on its very first request from a flooded IP, on every replica', async () => {
    // Still over the limit from the flood above: garbage keys from this address are refused.
    expect((await stack.call(b, 'GET', '/v1/accounts', { token: `pfx_live_${randomBytes(20).toString('hex')}`, from })).status).toBe(429);
    // The key's fingerprint reached every gateway before it was handed out, so its first
    // request is looked up (and served) instead of being refused by the per-IP limit.
    const fresh = await stack.createKey();
    for (const gateway of [b, a]) {
      const answer = await stack.call(gateway, 'GET', '/v1/accounts?limit=1', { token: fresh, from });
      expect(answer.status).toBe(200);
    }
    for (let i = 0; i < 5; i += 1) expect((await stack.call(b, 'GET', '/v1/accounts?limit=1', { token: fresh, from })).status).toBe(200);
  });
});

describe('the real limits: 1,200 reads and 120 writes per minute', () => {
  it('130 writes and 1,230 reads on one key let exactly 120 and 1,200 through; a second key is untouched', async () => {
    const real = await stack.startGateway({ REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: prefix() });
    const token = await stack.createKey();
    const other = await stack.createKey();
    expect(passed(await writes(token, 130, [real]))).toBe(120);
    expect(passed(await reads(token, 1230, [real]))).toBe(1200);
    const untouched = await stack.call(real, 'POST', '/v1/traders', { token: other, body: { name: 'T', email: 'other@example.com' } });
    expect(untouched.status).toBe(201);
    expect(header(untouched, 'RateLimit-Limit')).toBe(120);
    expect(header(untouched, 'RateLimit-Remaining')).toBe(119);
  }, 120_000);
});

describe('when Redis stops mid-run', () => {
  it('requests are still served, promptly, and shared limiting resumes when Redis is back', async () => {
    const token = await stack.createKey();
    expect((await stack.call(a, 'GET', '/v1/accounts?limit=1', { token })).status).toBe(200);

    await redis.stop();
    const during = await reads(token, 20, [a, b]);
    for (const answer of during) {
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(1_000);
    }
    // The insurance limiter still limits: each replica alone keeps a key within its bucket.
    const burst = await writes(token, 16, [a]);
    expect(passed(burst)).toBe(12);

    await redis.restart();
    // Until both replicas have reconnected a request may still be counted in process; shared
    // counting shows as one key's remaining going down across the two replicas.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = await stack.createKey();
      const first = await stack.call(a, 'GET', '/v1/accounts?limit=1', { token: probe });
      const second = await stack.call(b, 'GET', '/v1/accounts?limit=1', { token: probe });
      if (header(second, 'RateLimit-Remaining') === header(first, 'RateLimit-Remaining') - 1) break;
      if (Date.now() > deadline) throw new Error('shared limiting did not resume within 10 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(passed(await writes(await stack.createKey(), 20, [a, b]))).toBe(12);
  }, 60_000);
});
