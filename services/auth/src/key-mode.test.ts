/**
 * SPEC 13: keys have a mode. A test key is pfx_test_ + 40 characters and resolves to its
 * organization's test partition; everything a live key does (hash-only storage, the identical
 * refusal of unknown, revoked and expired keys, roll, limits) holds for it.
 */
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { authv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { createOrg, rejection, startAuthForTest } from './test/harness';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('auth service: test keys', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;
  let pg: Client;
  let org: authv1.Organization;
  let unknown: { code: string; message: string };

  beforeAll(async () => {
    auth = await startAuthForTest();
    pg = new Client({ connectionString: auth.db.url });
    await pg.connect();
    org = await createOrg(auth.client, '0', authv1.PlanStatus.PLAN_STATUS_UNPAID);
    unknown = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(`pfx_test_${'U'.repeat(40)}`) }));
  });
  afterAll(async () => {
    await pg.end();
    await auth.stop();
  });

  const create = (mode: Mode, fields: Partial<authv1.CreateApiKeyRequest> = {}) =>
    auth.client.call.createApiKey({ organizationId: org.id, mode, name: 'k', scopes: ['accounts:read'], ...fields });

  it('creates a pfx_test_ key of 49 characters whose prefix is its first 17, stored as its SHA-256 only', async () => {
    const { apiKey, token } = await create(Mode.MODE_TEST, { name: 'sandbox' });
    expect(token).toMatch(/^pfx_test_[A-Za-z0-9]{40}$/);
    expect(token).toHaveLength(49);
    expect(apiKey).toMatchObject({ name: 'sandbox', prefix: token.slice(0, 17), mode: Mode.MODE_TEST });
    const { rows } = await pg.query('SELECT * FROM auth.api_keys WHERE id = $1', [apiKey!.id]);
    expect(JSON.stringify(rows)).not.toContain(token.slice(17));
    expect(rows[0].token_sha256).toBe(sha256(token));
    expect(rows[0].livemode).toBe(false);
  });

  it('makes a live key when no mode is named, as before test mode', async () => {
    const { apiKey, token } = await create(Mode.MODE_UNSPECIFIED);
    expect(token).toMatch(/^pfx_live_/);
    expect(apiKey!.mode).toBe(Mode.MODE_LIVE);
  });

  it("verifies a test key with its mode, whatever the organization's plan", async () => {
    const { apiKey, token } = await create(Mode.MODE_TEST, { scopes: ['trading:write'] });
    expect(await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) })).toEqual({
      apiKeyId: apiKey!.id,
      organizationId: org.id,
      scopes: ['trading:write'],
      planStatus: authv1.PlanStatus.PLAN_STATUS_UNPAID,
      mode: Mode.MODE_TEST,
    });
  });

  it('refuses a revoked or expired test key exactly like an unknown one', async () => {
    const { apiKey, token } = await create(Mode.MODE_TEST);
    await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    expect(await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(token) }))).toEqual(unknown);

    const expiring = await create(Mode.MODE_TEST, { expiresInSeconds: 1 });
    await sleep(1100);
    expect(await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(expiring.token) }))).toEqual(unknown);
  });

  it('rolls a test key into a test key with the same name, scopes and limits', async () => {
    const { apiKey } = await create(Mode.MODE_TEST, { name: 'ci', scopes: ['accounts:read', 'accounts:write'] });
    await auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: apiKey!.id, readPerMin: 40, writePerMin: 4 });
    const rolled = await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: apiKey!.id, previousExpiresInSeconds: 0 });
    expect(rolled.token).toMatch(/^pfx_test_[A-Za-z0-9]{40}$/);
    expect(rolled.apiKey).toMatchObject({ name: 'ci', scopes: ['accounts:read', 'accounts:write'], readPerMin: 40, writePerMin: 4, mode: Mode.MODE_TEST });
    const verified = await auth.client.call.verifyApiKey({ tokenSha256: sha256(rolled.token) });
    expect(verified).toMatchObject({ mode: Mode.MODE_TEST, readPerMin: 40, writePerMin: 4 });
  });

  it('lists one mode at a time; a cursor of one mode is invalid in the other', async () => {
    const other = await createOrg(auth.client);
    const make = (mode: Mode, name: string) => auth.client.call.createApiKey({ organizationId: other.id, mode, name, scopes: [] });
    for (const name of ['l1', 'l2', 'l3']) await make(Mode.MODE_LIVE, name);
    for (const name of ['t1', 't2', 't3']) await make(Mode.MODE_TEST, name);
    const names = async (mode: Mode) => {
      const seen: string[] = [];
      let pageToken = '';
      do {
        const page = await auth.client.call.listApiKeys({ organizationId: other.id, mode, pageSize: 2, pageToken });
        seen.push(...page.apiKeys.map((k) => `${k.name}:${k.mode}`));
        pageToken = page.nextPageToken;
      } while (pageToken);
      return seen;
    };
    expect(await names(Mode.MODE_LIVE)).toEqual(['l1:1', 'l2:1', 'l3:1']);
    expect(await names(Mode.MODE_UNSPECIFIED)).toEqual(['l1:1', 'l2:1', 'l3:1']);
    expect(await names(Mode.MODE_TEST)).toEqual(['t1:2', 't2:2', 't3:2']);

    const livePage = await auth.client.call.listApiKeys({ organizationId: other.id, mode: Mode.MODE_LIVE, pageSize: 1, pageToken: '' });
    expect(await rejection(auth.client.call.listApiKeys({ organizationId: other.id, mode: Mode.MODE_TEST, pageSize: 1, pageToken: livePage.nextPageToken }))).toMatchObject({
      code: 'invalid_cursor',
    });
  });

  it('refuses an unknown mode, naming it', async () => {
    expect(await rejection(create(7 as Mode))).toMatchObject({ code: 'invalid_request', param: 'mode' });
  });
});
