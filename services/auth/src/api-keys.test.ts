import { createHash, randomUUID } from 'node:crypto';
import { authv1 } from '@propdesk/proto';
import { Client } from 'pg';
import { Mode } from '@propdesk/kit';
import { createOrg, rejection, startAuthForTest } from './test/harness';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

describe('auth service: API keys', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;
  let pg: Client;

  beforeAll(async () => {
    auth = await startAuthForTest();
    pg = new Client({ connectionString: auth.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await auth.stop();
  });

  it('creates a pfx_live_ key of 49 characters whose prefix is its first 17, and stores only its SHA-256', async () => {
    const org = await createOrg(auth.client);
    const { apiKey, token } = await auth.client.call.createApiKey({
      organizationId: org.id,
      mode: Mode.MODE_LIVE,
      name: 'integration',
      scopes: ['accounts:write', 'accounts:read', 'accounts:read'],
    });
    expect(token).toMatch(/^pfx_live_[A-Za-z0-9]{40}$/);
    expect(token).toHaveLength(49);
    expect(apiKey).toMatchObject({ organizationId: org.id, name: 'integration', prefix: token.slice(0, 17), scopes: ['accounts:read', 'accounts:write'] });
    expect(apiKey?.lastUsedAt).toBeUndefined();
    expect(apiKey?.revokedAt).toBeUndefined();

    const { rows } = await pg.query('SELECT * FROM auth.api_keys WHERE id = $1', [apiKey!.id]);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(17));
    expect(rows[0].token_sha256).toBe(sha256(token));
  });

  it('validates name, scopes and organization', async () => {
    const org = await createOrg(auth.client);
    expect(await rejection(auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: '', scopes: [] }))).toMatchObject({
      code: 'invalid_request',
      param: 'name',
    });
    expect(await rejection(auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'x'.repeat(101), scopes: [] }))).toMatchObject({
      param: 'name',
    });
    expect(await rejection(auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'k', scopes: ['admin'] }))).toMatchObject({
      code: 'invalid_request',
      param: 'scopes',
    });
    expect(await rejection(auth.client.call.createApiKey({ organizationId: randomUUID(), mode: Mode.MODE_LIVE, name: 'k', scopes: [] }))).toMatchObject({
      code: 'not_found',
    });
    expect(await rejection(auth.client.call.createApiKey({ organizationId: 'nope', mode: Mode.MODE_LIVE, name: 'k', scopes: [] }))).toMatchObject({ code: 'not_found' });
    const none = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'no scopes', scopes: [] });
    expect(none.apiKey?.scopes).toEqual([]);
  });

  it('verifies by hash with scopes and plan status; unknown and revoked keys fail alike', async () => {
    const org = await createOrg(auth.client, '0', authv1.PlanStatus.PLAN_STATUS_UNPAID);
    const { apiKey, token } = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'v', scopes: ['trading:write'] });
    const verified = await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
    expect(verified).toEqual({
      apiKeyId: apiKey!.id,
      organizationId: org.id,
      scopes: ['trading:write'],
      planStatus: authv1.PlanStatus.PLAN_STATUS_UNPAID,
      mode: Mode.MODE_LIVE,
    });
    const unknown = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256('pfx_live_unknown') }));
    const garbage = await rejection(auth.client.call.verifyApiKey({ tokenSha256: 'not hex' }));

    const revoked = await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    expect(revoked.apiKey?.revokedAt).toBeInstanceOf(Date);
    const afterRevoke = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(token) }));
    expect(afterRevoke).toEqual(unknown);
    expect(garbage).toEqual(unknown);
    expect(unknown).toMatchObject({ code: 'invalid_api_key' });
  });

  it('records last use without slowing verification, at most once a minute', async () => {
    const org = await createOrg(auth.client);
    const { apiKey, token } = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'used', scopes: [] });
    await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
    let first: Date | null = null;
    for (let i = 0; i < 50 && !first; i += 1) {
      const { rows } = await pg.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM auth.api_keys WHERE id = $1', [apiKey!.id]);
      first = rows[0].last_used_at;
      if (!first) await new Promise((r) => setTimeout(r, 20));
    }
    expect(first).toBeInstanceOf(Date);
    await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await pg.query<{ last_used_at: Date }>('SELECT last_used_at FROM auth.api_keys WHERE id = $1', [apiKey!.id]);
    expect(rows[0].last_used_at.getTime()).toBe(first!.getTime());
  });

  it('revokes once: a second revoke answers the first revoked_at; the record stays listed', async () => {
    const org = await createOrg(auth.client);
    const { apiKey } = await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'r', scopes: [] });
    const first = await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    await new Promise((r) => setTimeout(r, 20));
    const second = await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    expect(second.apiKey?.revokedAt?.getTime()).toBe(first.apiKey?.revokedAt?.getTime());
    const listed = await auth.client.call.listApiKeys({ organizationId: org.id, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' });
    expect(listed.apiKeys.map((k) => k.id)).toEqual([apiKey!.id]);
    expect(listed.apiKeys[0].revokedAt).toBeInstanceOf(Date);
  });

  it("answers not_found for another organization's key and for malformed ids", async () => {
    const mine = await createOrg(auth.client);
    const theirs = await createOrg(auth.client);
    const { apiKey, token } = await auth.client.call.createApiKey({ organizationId: theirs.id, mode: Mode.MODE_LIVE, name: 't', scopes: [] });
    expect(await rejection(auth.client.call.revokeApiKey({ organizationId: mine.id, apiKeyId: apiKey!.id }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(auth.client.call.revokeApiKey({ organizationId: mine.id, apiKeyId: 'abc' }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(auth.client.call.revokeApiKey({ organizationId: 'abc', apiKeyId: apiKey!.id }))).toMatchObject({ code: 'not_found' });
    // still valid
    await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
  });

  it('pages keys with opaque cursors bound to the organization; keys created while paging appear once', async () => {
    const org = await createOrg(auth.client);
    const other = await createOrg(auth.client);
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      created.push((await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: `k${i}`, scopes: [] })).apiKey!.id);
    }
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await auth.client.call.listApiKeys({ organizationId: org.id, mode: Mode.MODE_LIVE, pageSize: 2, pageToken });
      expect(page.apiKeys.length).toBeLessThanOrEqual(2);
      seen.push(...page.apiKeys.map((k) => k.id));
      if (pages === 0) created.push((await auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'late', scopes: [] })).apiKey!.id);
      if (pages === 0) {
        expect(await rejection(auth.client.call.listApiKeys({ organizationId: other.id, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: page.nextPageToken }))).toMatchObject({
          code: 'invalid_cursor',
        });
        expect(
          await rejection(auth.client.call.listApiKeys({ organizationId: org.id, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: `x${page.nextPageToken}` })),
        ).toMatchObject({ code: 'invalid_cursor' });
      }
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(seen).toEqual(created);
    expect(pages).toBe(3);
    const empty = await auth.client.call.listApiKeys({ organizationId: randomUUID(), mode: Mode.MODE_LIVE, pageSize: 500, pageToken: '' });
    expect(empty).toEqual({ apiKeys: [], nextPageToken: '' });
    expect(await rejection(auth.client.call.listApiKeys({ organizationId: org.id, mode: Mode.MODE_LIVE, pageSize: -1, pageToken: '' }))).toMatchObject({
      code: 'invalid_request',
    });
  });
});
