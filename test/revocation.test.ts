/**
 * Issue 2 item 4: revocation holds on the very next request on every gateway replica, although
 * each replica caches verified keys. Two gateway instances share the services; both caches are
 * warm; the key is revoked through the panel route; the next request on each answers 401.
 */
import { startStack, type Stack } from './support/stack';
import { client, request, type ErrorBody } from './support/http';

let stack: Stack;
let orgId: string;
let ownerCookie: string;

beforeAll(async () => {
  stack = await startStack({ gatewayReplicas: 2 });
  orgId = (await stack.createOrg()).id;
  await stack.createAccounts(orgId, 2);
  const owner = await stack.createUser(orgId, { role: 'owner' });
  // startStack has waited for both gateways' invalidation streams: they cache.
  ownerCookie = await stack.panelLogin(owner.email, owner.password);
});

afterAll(async () => {
  await stack?.stop();
});

async function warm(token: string): Promise<void> {
  for (const url of stack.gateways) {
    for (let i = 0; i < 3; i += 1) {
      const res = await client(url, token).get('/v1/accounts');
      expect(res.status).toBe(200);
    }
  }
}

describe('revocation across gateway replicas', () => {
  it('answers 401 on the very next request on every replica once the panel revokes the key', async () => {
    const key = await stack.createKey(orgId, ['accounts:read']);
    await warm(key.token);

    const revoke = await request<{ id: string; revoked_at: string }>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, {
      headers: { cookie: ownerCookie },
      template: '/api-keys/{id}/revoke',
    });
    expect(revoke.status).toBe(200);
    expect(revoke.body.id).toBe(key.id);

    for (const url of stack.gateways) {
      const res = await client(url, key.token).get<ErrorBody>('/v1/accounts');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
  });

  it('answers revoking again 200 with the first revoked_at', async () => {
    const key = await stack.createKey(orgId, ['accounts:read']);
    const first = await request<{ revoked_at: string }>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, { headers: { cookie: ownerCookie }, template: '/api-keys/{id}/revoke' });
    const second = await request<{ revoked_at: string }>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, { headers: { cookie: ownerCookie }, template: '/api-keys/{id}/revoke' });
    expect(second.status).toBe(200);
    expect(second.body.revoked_at).toBe(first.body.revoked_at);
  });

  it('refuses a bearer API key as a panel session (401) and a member session (403)', async () => {
    const key = await stack.createKey(orgId, ['accounts:read', 'accounts:write']);
    const withBearer = await request<ErrorBody>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, { token: key.token, template: '/api-keys/{id}/revoke' });
    expect(withBearer.status).toBe(401);
    expect(withBearer.body.error.code).toBe('unauthorized');
    const member = await stack.createUser(orgId, { role: 'member' });
    const memberCookie = await stack.panelLogin(member.email, member.password);
    const asMember = await request<ErrorBody>(stack.url, 'POST', `/api-keys/${key.id}/revoke`, { headers: { cookie: memberCookie }, template: '/api-keys/{id}/revoke' });
    expect(asMember.status).toBe(403);
    expect(asMember.body.error.code).toBe('forbidden');
    const stillValid = await client(stack.url, key.token).get('/v1/accounts');
    expect(stillValid.status).toBe(200);
  });

  it('answers a key of another organization 404', async () => {
    const other = await stack.createOrg();
    const foreign = await stack.createKey(other.id);
    const res = await request<ErrorBody>(stack.url, 'POST', `/api-keys/${foreign.id}/revoke`, { headers: { cookie: ownerCookie }, template: '/api-keys/{id}/revoke' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('drops the cached keys of an organization whose plan becomes unpaid (402 on every replica)', async () => {
    const org = await stack.createOrg();
    const key = await stack.createKey(org.id, ['accounts:read']);
    await warm(key.token);
    await stack.admin.auth.call.setOrganizationPlan({ organizationId: org.id, planStatus: 2 });
    for (const url of stack.gateways) {
      const res = await client(url, key.token).get<ErrorBody>('/v1/accounts');
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('payment_required');
    }
  });
});
