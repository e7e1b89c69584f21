/**
 * SPEC 5: a valid key is never refused by the per-IP limit, on any path or method under /v1: once
 * an IP has spent its bucket on bad keys, a valid key's requests are counted in the key's own
 * bucket and answered as they should be (404, 405, 200, 400, 401...), never 429. Requests without
 * a valid key from that IP stay refused.
 */
import { startStack, type Stack } from '../support/stack';
import { request } from '../support/http';

const IP_LIMIT = 5;
const READ_LIMIT = 1000;
const WRITE_LIMIT = 500;

let stack: Stack;
let token: string;
let number: number;

beforeAll(async () => {
  stack = await startStack({
    env: { RATE_LIMIT_IP_PER_MIN: String(IP_LIMIT), RATE_LIMIT_READ_PER_MIN: String(READ_LIMIT), RATE_LIMIT_WRITE_PER_MIN: String(WRITE_LIMIT) },
  });
  const org = await stack.createOrg();
  token = (await stack.createKey(org.id)).token;
  [number] = (await stack.createAccounts(org.id, 1)) as [number];
  // The key is verified once before the flood (as a client that was already working would be).
  expect((await request(stack.url, 'GET', '/v1/accounts', { token })).status).toBe(200);
  for (let i = 0; i < IP_LIMIT + 3; i += 1) await request(stack.url, 'GET', '/v1/accounts', { token: `pfx_live_${'x'.repeat(40)}` });
  const flooded = await request(stack.url, 'GET', '/v1/accounts', { token: `pfx_live_${'y'.repeat(40)}` });
  expect(flooded.status).toBe(429);
});

afterAll(async () => {
  await stack?.stop();
});

const json = { 'content-type': 'application/json' };

const CASES: Array<{ what: string; method: string; path: () => string; status: number; write: boolean; body?: string; headers?: Record<string, string> }> = [
  { what: 'an existing route', method: 'GET', path: () => '/v1/accounts', status: 200, write: false },
  { what: 'HEAD of an existing route', method: 'HEAD', path: () => '/v1/accounts', status: 200, write: false },
  { what: 'an unknown route', method: 'GET', path: () => '/v1/nope', status: 404, write: false },
  { what: 'an unknown route, written to', method: 'DELETE', path: () => '/v1/nope/deeper', status: 404, write: true },
  { what: '/v1 itself', method: 'GET', path: () => '/v1', status: 404, write: false },
  { what: 'a wrong method', method: 'PATCH', path: () => '/v1/accounts', status: 405, write: true },
  { what: 'a wrong method on a parameterised path', method: 'PUT', path: () => `/v1/accounts/${number}`, status: 405, write: true },
  { what: 'OPTIONS', method: 'OPTIONS', path: () => '/v1/accounts', status: 405, write: true },
  { what: 'the public document', method: 'GET', path: () => '/v1/openapi.json', status: 200, write: false },
  { what: 'a path that does not decode', method: 'GET', path: () => '/v1/accounts/%E0%A4%A', status: 400, write: false },
  { what: 'a body that is not JSON', method: 'POST', path: () => '/v1/traders', status: 400, write: true, body: '{nope', headers: json },
  { what: 'a body that is not declared JSON', method: 'POST', path: () => '/v1/traders', status: 415, write: true, body: '{"name":"a","email":"a@example.com"}', headers: { 'content-type': 'text/plain' } },
  { what: 'the executor login', method: 'POST', path: () => '/v1/executor/sessions', status: 401, write: true, body: JSON.stringify({ account: 1, password: 'wrong' }), headers: json },
  { what: 'an executor route', method: 'GET', path: () => '/v1/executor/account', status: 401, write: false },
];

describe('a valid key from an IP over its limit', () => {
  it.each(CASES)('is answered normally on $what ($method), counted in its own bucket', async ({ method, path, status, write, body, headers }) => {
    const res = await request(stack.url, method, path(), { token, body, headers });
    expect([method, path(), res.status]).toEqual([method, path(), status]);
    expect(res.headers.get('ratelimit-limit')).toBe(String(write ? WRITE_LIMIT : READ_LIMIT));
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('still answers requests without a valid key from that IP 429, on every route shape', async () => {
    for (const { method, path } of CASES) {
      const res = await request(stack.url, method, path(), {});
      expect([method, path(), res.status]).toEqual([method, path(), 429]);
      expect(res.headers.get('ratelimit-limit')).toBe(String(IP_LIMIT));
    }
  });
});
