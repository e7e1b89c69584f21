/**
 * Issue 14 item 3 through HTTP: keys that expire and keys rolled with an overlap, across two
 * gateway replicas whose caches are warm. An expired key gets exactly the unknown key's answer
 * on the very next request on every replica; a roll's new key works at once everywhere.
 */
import { randomBytes } from 'node:crypto';
import { startStack, type Stack } from '../support/stack';
import { client, request, type ApiResponse, type ErrorBody } from '../support/http';

let stack: Stack;
let orgId: string;
let ownerCookie: string;
let adminCookie: string;
let memberCookie: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepUntil = (iso: string, extraMs = 20) => sleep(Math.max(0, Date.parse(iso) - Date.now()) + extraMs);

interface CreatedKey {
  id: string;
  token: string;
  prefix: string;
  name: string;
  scopes: string[];
  expires_at: string | null;
}

interface ListedKey {
  id: string;
  name: string;
  expires_at: string | null;
  revoked_at: string | null;
  limits: { read: number | null; write: number | null };
}

beforeAll(async () => {
  stack = await startStack({ gatewayReplicas: 2 });
  orgId = (await stack.createOrg()).id;
  await stack.createAccounts(orgId, 1);
  const login = async (role: 'owner' | 'admin' | 'member') => {
    const user = await stack.createUser(orgId, { role });
    return stack.panelLogin(user.email, user.password);
  };
  ownerCookie = await login('owner');
  adminCookie = await login('admin');
  // startStack has waited for both gateways' invalidation streams: they cache.
  memberCookie = await login('member');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createKey(body: Record<string, unknown>, cookie = ownerCookie): Promise<CreatedKey> {
  const res = await request<CreatedKey>(stack.url, 'POST', '/panel/api/keys', { headers: { cookie }, body });
  expect(res.status).toBe(201);
  return res.body;
}

/** `cookie` null: no session at all. */
function roll(id: string, body?: unknown, cookie: string | null = ownerCookie): Promise<ApiResponse<CreatedKey & ErrorBody>> {
  return request(stack.url, 'POST', `/api-keys/${id}/roll`, { headers: cookie ? { cookie } : {}, body, template: '/api-keys/{id}/roll' });
}

async function listed(id: string): Promise<ListedKey> {
  const res = await request<{ data: ListedKey[] }>(stack.url, 'GET', '/panel/api/keys?limit=200', { headers: { cookie: ownerCookie } });
  const key = res.body.data.find((k) => k.id === id);
  if (!key) throw new Error(`key ${id} not listed`);
  return key;
}

/** Every replica, a few times each, so each caches the key. */
async function warm(token: string): Promise<void> {
  for (const url of stack.gateways) {
    for (let i = 0; i < 3; i += 1) expect((await client(url, token).get('/v1/accounts')).status).toBe(200);
  }
}

/** The 401 an unknown key gets, byte for byte. */
async function unknownKeyAnswer(url: string): Promise<ApiResponse> {
  const res = await client(url, `pfx_live_${randomBytes(20).toString('hex')}`).get('/v1/accounts');
  expect(res.status).toBe(401);
  return res;
}

async function expectRefusedLikeUnknown(token: string): Promise<void> {
  for (const url of stack.gateways) {
    const res = await client(url, token).get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    expect(res.text).toBe((await unknownKeyAnswer(url)).text);
  }
}

describe('key expiry', () => {
  it('refuses a key on the very next request past its expires_at, on every replica, exactly like an unknown key', async () => {
    const key = await createKey({ name: 'expiring', scopes: ['accounts:read'], expires_in: 3 });
    expect(key).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^pfx_live_/),
      prefix: key.token.slice(0, 17),
      name: 'expiring',
      scopes: ['accounts:read'],
      mode: 'live',
      expires_at: expect.any(String),
    });
    expect(Math.abs(Date.parse(key.expires_at!) - (Date.now() + 3000))).toBeLessThan(1500);
    await warm(key.token);
    expect((await listed(key.id)).expires_at).toBe(key.expires_at);

    await sleepUntil(key.expires_at!);
    await expectRefusedLikeUnknown(key.token);
  });

  it('keeps keys made without expires_in, and refuses a bad expires_in naming it', async () => {
    const key = await createKey({ name: 'forever', scopes: ['accounts:read'] });
    expect(key.expires_at).toBeNull();
    for (const expires_in of [0, -1, 1.5, '60', 315_360_001]) {
      const res = await request<ErrorBody>(stack.url, 'POST', '/panel/api/keys', { headers: { cookie: ownerCookie }, body: { name: 'bad', expires_in } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'expires_in' });
    }
  });
});

describe('rolling a key', () => {
  it('answers 201 with a new key of the same name and scopes; both work until the overlap ends, then only the new one', async () => {
    const old = await createKey({ name: 'rolling', scopes: ['accounts:read', 'credentials:read'] });
    await warm(old.token);
    const res = await roll(old.id, { previous_expires_in: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^pfx_live_[A-Za-z0-9]{40}$/),
      prefix: res.body.token.slice(0, 17),
      name: 'rolling',
      scopes: ['accounts:read', 'credentials:read'],
      mode: 'live',
      expires_at: null,
    });
    expect(res.body.id).not.toBe(old.id);
    const oldExpiresAt = (await listed(old.id)).expires_at!;
    expect(Math.abs(Date.parse(oldExpiresAt) - (Date.now() + 3000))).toBeLessThan(1500);

    for (const url of stack.gateways) {
      expect((await client(url, res.body.token).get('/v1/accounts')).status).toBe(200);
      expect((await client(url, old.token).get('/v1/accounts')).status).toBe(200);
    }
    await sleepUntil(oldExpiresAt);
    await expectRefusedLikeUnknown(old.token);
    for (const url of stack.gateways) expect((await client(url, res.body.token).get('/v1/accounts')).status).toBe(200);
  });

  it('ends the old key at once on every replica with previous_expires_in 0, an admin may roll, and the overlap defaults to a day', async () => {
    const old = await createKey({ name: 'leaked', scopes: ['accounts:read'] });
    await warm(old.token);
    const res = await roll(old.id, { previous_expires_in: 0 }, adminCookie);
    expect(res.status).toBe(201);
    await expectRefusedLikeUnknown(old.token);

    const plain = await createKey({ name: 'routine', scopes: ['accounts:read'] });
    expect((await roll(plain.id)).status).toBe(201);
    expect(Math.abs(Date.parse((await listed(plain.id)).expires_at!) - (Date.now() + 86_400_000))).toBeLessThan(10_000);
  });

  it('refuses a revoked or expired key (409), a member (403), no session (401) and another organization key (404)', async () => {
    const revoked = await createKey({ name: 'revoked' });
    await request(stack.url, 'POST', `/api-keys/${revoked.id}/revoke`, { headers: { cookie: ownerCookie } });
    const conflict = await roll(revoked.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');

    const expiring = await createKey({ name: 'short', expires_in: 1 });
    await sleepUntil(expiring.expires_at!);
    expect((await roll(expiring.id)).status).toBe(409);

    const key = await createKey({ name: 'guarded' });
    const asMember = await roll(key.id, {}, memberCookie);
    expect(asMember.status).toBe(403);
    expect(asMember.body.error.code).toBe('forbidden');
    const anonymous = await roll(key.id, {}, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
    const withBearer = await request<ErrorBody>(stack.url, 'POST', `/api-keys/${key.id}/roll`, { token: key.token });
    expect(withBearer.status).toBe(401);

    const other = await stack.createOrg();
    const foreign = await stack.createKey(other.id);
    const notFound = await roll(foreign.id);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    expect((await roll('not-a-key')).status).toBe(404);
    // Nothing changed for the keys refused.
    expect((await listed(key.id)).expires_at).toBeNull();
  });

  it('refuses out-of-range or non-integer bodies with 400 naming the field', async () => {
    const key = await createKey({ name: 'careful' });
    for (const [body, param] of [
      [{ previous_expires_in: -1 }, 'previous_expires_in'],
      [{ previous_expires_in: 604_801 }, 'previous_expires_in'],
      [{ previous_expires_in: 2.5 }, 'previous_expires_in'],
      [{ previous_expires_in: '3600' }, 'previous_expires_in'],
      [{ expires_in: 0 }, 'expires_in'],
    ] as const) {
      const res = await roll(key.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    expect((await listed(key.id)).expires_at).toBeNull();
  });
});
