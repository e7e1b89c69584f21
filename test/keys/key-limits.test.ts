/**
 * Issue 14 item 4 through HTTP: an owner or admin sets a key's own read and write limits in the
 * panel; the next request on every gateway replica (sharing Redis) is counted against them and
 * the RateLimit-* headers show them; another key keeps the defaults.
 */
import { testRedisUrl } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { client, request, type ApiResponse, type ErrorBody } from '../support/http';

const REDIS_URL = testRedisUrl();

let stack: Stack;
let orgId: string;
let ownerCookie: string;
let memberCookie: string;

interface KeyJson {
  id: string;
  name: string;
  scopes: string[];
  expires_at: string | null;
  limits: { read: number | null; write: number | null };
}

beforeAll(async () => {
  stack = await startStack({ redisUrl: REDIS_URL, gatewayReplicas: 2, env: { RATE_LIMIT_READ_PER_MIN: '50', RATE_LIMIT_WRITE_PER_MIN: '10' } });
  orgId = (await stack.createOrg()).id;
  const owner = await stack.createUser(orgId, { role: 'owner' });
  ownerCookie = await stack.panelLogin(owner.email, owner.password);
  const member = await stack.createUser(orgId, { role: 'member' });
  // startStack has waited for both gateways' invalidation streams: they apply changes they are told of.
  memberCookie = await stack.panelLogin(member.email, member.password);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function setLimits(id: string, body: unknown, cookie = ownerCookie): Promise<ApiResponse<KeyJson & ErrorBody>> {
  return request(stack.url, 'POST', `/panel/api/keys/${id}/limits`, { headers: { cookie }, body });
}

const limitOf = (res: ApiResponse) => Number(res.headers.get('ratelimit-limit'));
const read = (url: string, token: string) => client(url, token).get('/v1/accounts');
// An empty body is refused with 400 after the limiter counted the write.
const write = (url: string, token: string) => client(url, token).post('/v1/traders', '/v1/traders', { body: {} });

describe("a key's own limits", () => {
  it('apply on the next request on every replica, show in the headers, and leave another key untouched', async () => {
    const limited = await stack.createKey(orgId, ['accounts:read', 'accounts:write']);
    const other = await stack.createKey(orgId, ['accounts:read', 'accounts:write']);
    for (const url of stack.gateways) {
      expect(limitOf(await read(url, limited.token))).toBe(50);
      expect(limitOf(await read(url, other.token))).toBe(50);
    }

    const set = await setLimits(limited.id, { read: 5, write: 2 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: limited.id, limits: { read: 5, write: 2 }, expires_at: null });

    // Reads: two already counted in this window, so three more pass, whichever replica serves them.
    const reads = [];
    for (let i = 0; i < 5; i += 1) reads.push(await read(stack.gateways[i % 2], limited.token));
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(reads.map(limitOf)).toEqual([5, 5, 5, 5, 5]);
    expect(reads.map((r) => Number(r.headers.get('ratelimit-remaining')))).toEqual([2, 1, 0, 0, 0]);
    expect(Number(reads[3].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((reads[3].body as ErrorBody).error.code).toBe('rate_limited');

    const writes = [];
    for (let i = 0; i < 3; i += 1) writes.push(await write(stack.gateways[i % 2], limited.token));
    expect(writes.map((w) => w.status)).toEqual([400, 400, 429]);
    expect(writes.map(limitOf)).toEqual([2, 2, 2]);

    for (const url of stack.gateways) {
      const untouched = await read(url, other.token);
      expect(untouched.status).toBe(200);
      expect(limitOf(untouched)).toBe(50);
      expect(limitOf(await write(url, other.token))).toBe(10);
    }
  });

  it('go back to the defaults with null, listed with the key', async () => {
    const key = await stack.createKey(orgId, ['accounts:read']);
    await setLimits(key.id, { read: 7, write: 3 });
    expect(limitOf(await read(stack.gateways[1], key.token))).toBe(7);
    const listed = await request<{ data: KeyJson[] }>(stack.url, 'GET', '/panel/api/keys?limit=200', { headers: { cookie: ownerCookie } });
    expect(listed.body.data.find((k) => k.id === key.id)?.limits).toEqual({ read: 7, write: 3 });
    const reset = await setLimits(key.id, { read: null, write: null });
    expect(reset.body.limits).toEqual({ read: null, write: null });
    for (const url of stack.gateways) expect(limitOf(await read(url, key.token))).toBe(50);
  });

  it("are refused to a member (403), for bad values (400 naming the field) and for another organization's key (404)", async () => {
    const key = await stack.createKey(orgId, ['accounts:read']);
    const asMember = await setLimits(key.id, { read: 5, write: 5 }, memberCookie);
    expect(asMember.status).toBe(403);
    expect(asMember.body.error.code).toBe('forbidden');
    for (const [body, param] of [
      [{ read: 0, write: 5 }, 'read'],
      [{ read: 5, write: 1.5 }, 'write'],
      [{ read: 5 }, 'write'],
      [{ read: '5', write: 5 }, 'read'],
      [{ read: 5, write: 1_000_001 }, 'write'],
    ] as const) {
      const res = await setLimits(key.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    const foreign = await stack.createKey((await stack.createOrg()).id);
    expect((await setLimits(foreign.id, { read: 5, write: 5 })).status).toBe(404);
    const anonymous = await request<ErrorBody>(stack.url, 'POST', `/panel/api/keys/${key.id}/limits`, { body: { read: 5, write: 5 } });
    expect(anonymous.status).toBe(401);
    expect(limitOf(await read(stack.url, key.token))).toBe(50);
  });
});
