/**
 * SPEC section 5 as wired in the gateway: per-key buckets, the per-IP bucket for requests without a
 * valid key, 429 rate_limited with Retry-After, RateLimit-* headers from the bucket used.
 * (Counting across replicas and Redis outages: test/limits/.)
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

let stack: Stack;
let orgId: string;

beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMIT_READ_PER_MIN: '3', RATE_LIMIT_WRITE_PER_MIN: '2', RATE_LIMIT_IP_PER_MIN: '4' } });
  orgId = (await stack.createOrg()).id;
});

afterAll(async () => {
  await stack?.stop();
});

describe('rate limits', () => {
  it('refuses the request past a key\'s read limit with 429, Retry-After and headers, without touching another key', async () => {
    const api = client(stack.url, (await stack.createKey(orgId)).token);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await api.get('/v1/accounts');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await api.get<ErrorBody>('/v1/accounts');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

    const writes = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name: 'W', email: 'w@example.com' } });
    expect(writes.headers.get('ratelimit-limit')).toBe('2');

    const other = client(stack.url, (await stack.createKey(orgId)).token);
    expect((await other.get('/v1/accounts')).status).toBe(200);
  });

  it('limits requests without a valid key per IP, then answers 429 instead of 401; a known valid key still passes', async () => {
    const valid = client(stack.url, (await stack.createKey(orgId)).token);
    expect((await valid.get('/v1/accounts')).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await client(stack.url, `pfx_live_${String(i).repeat(40)}`).get<ErrorBody>('/v1/accounts');
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429]);
    expect((await valid.get('/v1/accounts')).status).toBe(200);
  });
});
