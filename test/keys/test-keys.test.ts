/**
 * SPEC 13 through HTTP: keys have a mode. A test key (pfx_test_) made in the panel or by the
 * operator works for an organization without a plan (test mode is free), and everything SPEC 4
 * and 12 say of keys holds for it across two gateway replicas with warm caches: an unknown,
 * malformed, revoked or expired pfx_test_ token gets the very bytes an unknown live key gets;
 * a revocation or a roll reaches every replica before it answers; its own limits apply.
 */
import { randomBytes } from 'node:crypto';
import { startStack, type Stack } from '../support/stack';
import { client, request, type ApiResponse, type ErrorBody } from '../support/http';

let stack: Stack;
let paidOrg: string;
let unpaidOrg: string;
let ownerCookie: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CreatedKey {
  id: string;
  token: string;
  prefix: string;
  name: string;
  scopes: string[];
  mode: 'live' | 'test';
  expires_at: string | null;
}

beforeAll(async () => {
  stack = await startStack({ gatewayReplicas: 2 });
  paidOrg = (await stack.createOrg()).id;
  unpaidOrg = (await stack.createOrg({ paid: false, credits: 0 })).id;
  const owner = await stack.createUser(paidOrg, { role: 'owner' });
  ownerCookie = await stack.panelLogin(owner.email, owner.password);
  await sleep(500);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function panelKey(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<CreatedKey> {
  const res = await request<CreatedKey>(stack.url, 'POST', '/panel/api/keys', { headers: { cookie: ownerCookie, ...headers }, body });
  expect(res.status).toBe(201);
  return res.body;
}

async function warm(token: string): Promise<void> {
  for (const url of stack.gateways) {
    for (let i = 0; i < 3; i += 1) expect((await client(url, token).get('/v1/events')).status).toBe(200);
  }
}

async function unknownLiveAnswer(url: string): Promise<ApiResponse> {
  const res = await client(url, `pfx_live_${randomBytes(20).toString('hex')}`).get('/v1/accounts');
  expect(res.status).toBe(401);
  return res;
}

async function expectRefusedLikeUnknown(token: string): Promise<void> {
  for (const url of stack.gateways) {
    const res = await client(url, token).get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    expect(res.text).toBe((await unknownLiveAnswer(url)).text);
  }
}

describe('test keys', () => {
  it('are made in the panel with the mode chosen, or the mode the panel shows, and carry it', async () => {
    const chosen = await panelKey({ name: 'sandbox', scopes: ['accounts:read'], mode: 'test' });
    expect(chosen).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^pfx_test_[A-Za-z0-9]{40}$/),
      prefix: chosen.token.slice(0, 17),
      name: 'sandbox',
      scopes: ['accounts:read'],
      mode: 'test',
      expires_at: null,
    });
    const fromSwitch = await panelKey({ name: 'switched', scopes: [] }, { 'x-propdesk-mode': 'test' });
    expect(fromSwitch.mode).toBe('test');
    const live = await panelKey({ name: 'live', scopes: [] });
    expect(live.token).toMatch(/^pfx_live_/);

    const list = async (mode: string) => {
      const res = await request<{ data: Array<{ id: string; mode: string }> }>(stack.url, 'GET', '/panel/api/keys?limit=200', {
        headers: { cookie: ownerCookie, 'x-propdesk-mode': mode },
      });
      expect(res.status).toBe(200);
      return res.body.data;
    };
    const testKeys = await list('test');
    expect(testKeys.map((k) => k.id)).toEqual(expect.arrayContaining([chosen.id, fromSwitch.id]));
    expect(testKeys.every((k) => k.mode === 'test')).toBe(true);
    const liveKeys = await list('live');
    expect(liveKeys.map((k) => k.id)).toContain(live.id);
    expect(liveKeys.map((k) => k.id)).not.toContain(chosen.id);

    const bad = await request<ErrorBody>(stack.url, 'POST', '/panel/api/keys', { headers: { cookie: ownerCookie }, body: { name: 'x', mode: 'staging' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'mode' });
  });

  it('work for an organization without a plan, where a live key gets 402', async () => {
    const live = await stack.createKey(unpaidOrg);
    const test = await stack.createKey(unpaidOrg, undefined, 'sandbox', { mode: 'test' });
    expect(test.token).toMatch(/^pfx_test_/);
    expect((await client(stack.url, live.token).get<ErrorBody>('/v1/events')).status).toBe(402);
    for (const url of stack.gateways) {
      expect((await client(url, test.token).get('/v1/events')).status).toBe(200);
    }
  });

  it('refuse unknown, malformed, revoked and expired pfx_test_ tokens with the bytes an unknown live key gets', async () => {
    const revoked = await stack.createKey(paidOrg, ['accounts:read'], 'revoked', { mode: 'test' });
    await stack.admin.auth.call.revokeApiKey({ organizationId: paidOrg, apiKeyId: revoked.id });
    const expiring = await panelKey({ name: 'expiring', scopes: ['accounts:read'], mode: 'test', expires_in: 1 });
    await sleep(Math.max(0, Date.parse(expiring.expires_at!) - Date.now()) + 50);
    for (const token of [`pfx_test_${'A'.repeat(40)}`, 'pfx_test_short', `pfx_test_${'A'.repeat(41)}`, revoked.token, expiring.token]) {
      await expectRefusedLikeUnknown(token);
    }
  });

  it('stop on every replica the moment the panel revokes them', async () => {
    const key = await panelKey({ name: 'revoke me', scopes: ['accounts:read'], mode: 'test' });
    await warm(key.token);
    const revoke = await request<{ mode: string }>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, { headers: { cookie: ownerCookie }, template: '/api-keys/{id}/revoke' });
    expect(revoke.status).toBe(200);
    expect(revoke.body.mode).toBe('test');
    await expectRefusedLikeUnknown(key.token);
  });

  it('roll into a new test key that works at once everywhere', async () => {
    const old = await panelKey({ name: 'rolling', scopes: ['accounts:read'], mode: 'test' });
    await warm(old.token);
    const rolled = await request<CreatedKey>(stack.url, 'POST', `/api-keys/${old.id}/roll`, {
      headers: { cookie: ownerCookie },
      body: { previous_expires_in: 0 },
      template: '/api-keys/{id}/roll',
    });
    expect(rolled.status).toBe(201);
    expect(rolled.body).toMatchObject({ name: 'rolling', mode: 'test', token: expect.stringMatching(/^pfx_test_[A-Za-z0-9]{40}$/) });
    for (const url of stack.gateways) expect((await client(url, rolled.body.token).get('/v1/events')).status).toBe(200);
    await expectRefusedLikeUnknown(old.token);
  });

  it('take their own limits per minute', async () => {
    const key = await panelKey({ name: 'limited', scopes: ['accounts:read'], mode: 'test' });
    const set = await request(stack.url, 'POST', `/panel/api/keys/${key.id}/limits`, { headers: { cookie: ownerCookie }, body: { read: 7, write: 3 } });
    expect(set.status).toBe(200);
    const res = await client(stack.url, key.token).get('/v1/events');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('7');
  });
});
