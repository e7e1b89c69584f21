/**
 * Issue 2 item 4: the authentication matrix of SPEC section 4, error bodies of section 6, as an
 * integrator sees them over HTTP. Every answer is checked against the OpenAPI document.
 */
import { startStack, type Stack } from './support/stack';
import { API_ERRORS, type ApiErrorCode } from '@propdesk/kit';
import { client, request, type ErrorBody } from './support/http';
import { documentedErrorCodes } from './support/openapi-check';

let stack: Stack;
let paidOrg: string;
let fullKey: string;

beforeAll(async () => {
  stack = await startStack();
  paidOrg = (await stack.createOrg()).id;
  fullKey = (await stack.createKey(paidOrg)).token;
  await stack.createAccounts(paidOrg, 3);
});

afterAll(async () => {
  await stack?.stop();
});

describe('authentication', () => {
  it('without an Authorization header, answers 401 unauthorized', async () => {
    const res = await client(stack.url).get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('with a header that is not a bearer token, answers 401 unauthorized', async () => {
    const res = await request<ErrorBody>(stack.url, 'GET', '/v1/accounts', { headers: { authorization: `Basic ${fullKey}` }, template: '/v1/accounts' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('answers unknown, malformed and revoked keys with byte-identical 401 invalid_api_key bodies', async () => {
    const revoked = await stack.createKey(paidOrg, ['accounts:read']);
    await stack.admin.auth.call.revokeApiKey({ organizationId: paidOrg, apiKeyId: revoked.id });
    const unknown = `pfx_live_${'A'.repeat(40)}`;
    const bodies: string[] = [];
    for (const token of [unknown, 'not-a-key', 'pfx_live_short', revoked.token]) {
      const res = await client(stack.url, token).get<ErrorBody>('/v1/accounts');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
      bodies.push(res.text);
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it('answers a key of an organization without a plan 402 payment_required', async () => {
    const unpaid = await stack.createOrg({ paid: false });
    const key = await stack.createKey(unpaid.id);
    const res = await client(stack.url, key.token).get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('payment_required');
  });

  it('answers a missing scope 403 missing_scope naming the scope, never 401', async () => {
    const readOnly = await stack.createKey(paidOrg, ['accounts:read']);
    const res = await client(stack.url, readOnly.token).post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('missing_scope');
    expect(res.body.error.message).toContain('accounts:write');
  });

  it('lets a key with no scopes authenticate and answers 403 on every scoped call', async () => {
    const none = await stack.createKey(paidOrg, []);
    const api = client(stack.url, none.token);
    const list = await api.get<ErrorBody>('/v1/accounts');
    expect(list.status).toBe(403);
    expect(list.body.error.message).toContain('accounts:read');
    const creds = await api.get<ErrorBody>('/v1/accounts/{number}/credentials', '/v1/accounts/1/credentials');
    expect(creds.status).toBe(403);
    expect(creds.body.error.message).toContain('credentials:read');
  });

  it('serves a valid key with rate-limit headers and an echoed request id', async () => {
    const res = await request(stack.url, 'GET', '/v1/accounts', { token: fullKey, headers: { 'x-request-id': 'e2e-request-1' }, template: '/v1/accounts' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('e2e-request-1');
    expect(Number(res.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
    expect(res.headers.get('ratelimit-reset')).not.toBeNull();
  });

  it('puts rate-limit headers on refused requests too', async () => {
    const res = await client(stack.url).get('/v1/accounts');
    expect(res.headers.get('ratelimit-limit')).not.toBeNull();
  });
});

describe('error bodies', () => {
  it('answers malformed JSON 400 invalid_request', async () => {
    const res = await client(stack.url, fullKey).post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: '{"count": 1,' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers a body over 1 MB 413 payload_too_large', async () => {
    const big = JSON.stringify({ count: 1, padding: 'x'.repeat(1024 * 1024 + 10) });
    const res = await client(stack.url, fullKey).post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: big });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers unknown routes 404 not_found for any method', async () => {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      const res = await request<ErrorBody>(stack.url, method, '/v1/nothing-here', { token: fullKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
    const outside = await request<ErrorBody>(stack.url, 'GET', '/nowhere');
    expect(outside.status).toBe(404);
  });

  it('answers a non-integer account number 400 naming the parameter', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await client(stack.url, fullKey).get<ErrorBody>('/v1/accounts/{number}', `/v1/accounts/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'number' });
    }
  });

  it('answers a path with broken percent-encoding 400, not 500', async () => {
    const res = await request<ErrorBody>(stack.url, 'GET', '/v1/accounts/%E0%A4%A', { token: fullKey, template: '/v1/accounts/{number}' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers a JSON body that is not an object 400 naming the body', async () => {
    const res = await client(stack.url, fullKey).post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: '[1,2]' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'body' });
  });

  it('serves the OpenAPI document without a key', async () => {
    const res = await client(stack.url).get<{ openapi: string; paths: Record<string, unknown> }>('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/accounts', '/v1/executor/sessions', '/v1/webhooks']));
  });
});

describe('the documented errors of an operation', () => {
  /** The client errors an operation lists, but rate_limited (the limits suites provoke it) and 5xx (failures.test.ts). */
  const clientErrors = (method: string, template: string) =>
    documentedErrorCodes(method, template)
      .filter((code) => API_ERRORS[code as ApiErrorCode] < 500 && code !== 'rate_limited')
      .sort();

  async function provoked(template: string, attempts: Array<{ token?: string; path: string }>): Promise<string[]> {
    const codes = new Set<string>();
    for (const { token, path } of attempts) {
      const res = await client(stack.url, token).get<ErrorBody>(template, path);
      codes.add(res.body.error.code);
    }
    return [...codes].sort();
  }

  it('GET /v1/accounts/{number}: each listed client error happens, and no other', async () => {
    const unpaid = await stack.createKey((await stack.createOrg({ paid: false })).id);
    const noScope = await stack.createKey(paidOrg, ['accounts:write']);
    const seen = await provoked('/v1/accounts/{number}', [
      { token: fullKey, path: '/v1/accounts/abc' },
      { path: '/v1/accounts/1' },
      { token: `pfx_live_${'B'.repeat(40)}`, path: '/v1/accounts/1' },
      { token: unpaid.token, path: '/v1/accounts/1' },
      { token: noScope.token, path: '/v1/accounts/1' },
      { token: fullKey, path: '/v1/accounts/999999999' },
    ]);
    expect(seen).toEqual(clientErrors('get', '/v1/accounts/{number}'));
  });

  it('GET /v1/events: each listed client error happens, and no other', async () => {
    const unpaid = await stack.createKey((await stack.createOrg({ paid: false })).id);
    const noScope = await stack.createKey(paidOrg, ['trading:write']);
    const seen = await provoked('/v1/events', [
      { token: fullKey, path: '/v1/events?type=account.exploded' },
      { token: fullKey, path: '/v1/events?cursor=not-a-cursor' },
      { path: '/v1/events' },
      { token: `pfx_live_${'C'.repeat(40)}`, path: '/v1/events' },
      { token: unpaid.token, path: '/v1/events' },
      { token: noScope.token, path: '/v1/events' },
    ]);
    expect(seen).toEqual(clientErrors('get', '/v1/events'));
  });
});

describe('health and metrics', () => {
  it('exposes Prometheus metrics outside /v1', async () => {
    const res = await fetch(`${stack.url}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('propdesk_gateway_requests_total');
    expect(text).toContain('propdesk_gateway_request_duration_seconds');
  });

  it('answers GET /healthz 200 with every service serving', async () => {
    const res = await client(stack.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', services: { auth: 'serving', accounts: 'serving', webhooks: 'serving' } });
  });
});
