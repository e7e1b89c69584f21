/**
 * Issue 14 items 3 and 4 in the auth service: keys that expire, rolling a key with an overlap,
 * and per-key limits, each change reaching watching gateways before the call answers.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { callMetadata, Mode } from '@propdesk/kit';
import type { authv1 } from '@propdesk/proto';
import { createOrg, rejection, startAuthForTest, type AuthClient } from './test/harness';

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A gateway-like watcher that acknowledges everything and records when each message arrived. */
function watcher(client: AuthClient) {
  const watcherId = randomUUID();
  const messages: Array<authv1.WatchInvalidationsResponse & { at: number }> = [];
  const stream: ClientReadableStream<authv1.WatchInvalidationsResponse> = client.raw.watchInvalidations({ watcherId }, callMetadata());
  stream.on('data', (m: authv1.WatchInvalidationsResponse) => {
    messages.push({ ...m, at: Date.now() });
    if (m.flushAll || m.apiKeyId !== '' || m.organizationId !== '' || m.keyFingerprints.length > 0) {
      client.call.ackInvalidation({ watcherId, seq: m.seq }).catch(() => undefined);
    }
  });
  stream.on('error', () => undefined);
  return { messages, ready: async () => { while (!messages.some((m) => m.fingerprintsComplete)) await sleep(10); }, cancel: () => stream.cancel() };
}

describe('auth service: key expiry, roll and per-key limits', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;
  let org: authv1.Organization;
  let unknown: { code: string; message: string };

  beforeAll(async () => {
    auth = await startAuthForTest();
    org = await createOrg(auth.client);
    unknown = await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256('pfx_live_unknown') }));
  });
  afterAll(async () => {
    await auth.stop();
  });

  const create = (options: Partial<authv1.CreateApiKeyRequest> = {}) =>
    auth.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'k', scopes: ['accounts:read'], ...options });

  describe('expiry', () => {
    it('gives a key expires_at from expires_in, tells verifiers how long it has left, then refuses it like an unknown key', async () => {
      const { apiKey, token } = await create({ expiresInSeconds: 2 });
      expect(Math.abs(apiKey!.expiresAt!.getTime() - (Date.now() + 2000))).toBeLessThan(1000);
      const verified = await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
      expect(Number(verified.expiresInMs)).toBeGreaterThan(1000);
      expect(Number(verified.expiresInMs)).toBeLessThanOrEqual(2000);
      await sleep(Math.max(0, apiKey!.expiresAt!.getTime() - Date.now()) + 50);
      expect(await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(token) }))).toEqual(unknown);
      const listed = await auth.client.call.listApiKeys({ organizationId: org.id, mode: Mode.MODE_LIVE, pageSize: 200, pageToken: '' });
      expect(listed.apiKeys.find((k) => k.id === apiKey!.id)?.expiresAt).toEqual(apiKey!.expiresAt);
    });

    it('leaves keys without expires_in unexpiring', async () => {
      const { apiKey, token } = await create();
      expect(apiKey!.expiresAt).toBeUndefined();
      expect((await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) })).expiresInMs).toBeUndefined();
    });

    it('refuses expires_in out of range, naming it', async () => {
      for (const expiresInSeconds of [0, -5, 315_360_001]) {
        expect(await rejection(create({ expiresInSeconds }))).toMatchObject({ code: 'invalid_request', param: 'expires_in' });
      }
    });
  });

  describe('roll', () => {
    it('makes a new key with the same name, scopes and limits, and expires the old one after the overlap', async () => {
      const { apiKey: old, token: oldToken } = await create({ name: 'billing sync', scopes: ['accounts:read', 'credentials:read'] });
      await auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: old!.id, readPerMin: 30, writePerMin: 5 });
      const rolled = await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: old!.id, previousExpiresInSeconds: 2 });
      expect(rolled.token).toMatch(/^pfx_live_[A-Za-z0-9]{40}$/);
      expect(rolled.apiKey).toMatchObject({
        name: 'billing sync',
        scopes: ['accounts:read', 'credentials:read'],
        prefix: rolled.token.slice(0, 17),
        readPerMin: 30,
        writePerMin: 5,
      });
      expect(rolled.apiKey!.id).not.toBe(old!.id);
      expect(rolled.apiKey!.expiresAt).toBeUndefined();
      expect(rolled.previousApiKey!.id).toBe(old!.id);
      expect(Math.abs(rolled.previousApiKey!.expiresAt!.getTime() - (Date.now() + 2000))).toBeLessThan(1000);

      expect((await auth.client.call.verifyApiKey({ tokenSha256: sha256(oldToken) })).apiKeyId).toBe(old!.id);
      expect((await auth.client.call.verifyApiKey({ tokenSha256: sha256(rolled.token) })).apiKeyId).toBe(rolled.apiKey!.id);
      await sleep(Math.max(0, rolled.previousApiKey!.expiresAt!.getTime() - Date.now()) + 50);
      expect(await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(oldToken) }))).toEqual(unknown);
      expect((await auth.client.call.verifyApiKey({ tokenSha256: sha256(rolled.token) })).readPerMin).toBe(30);
    });

    it('defaults the overlap to a day, never lengthens a key that expires sooner, and can give the new key a lifetime', async () => {
      const { apiKey: plain } = await create();
      const byDefault = await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: plain!.id });
      expect(Math.abs(byDefault.previousApiKey!.expiresAt!.getTime() - (Date.now() + 86_400_000))).toBeLessThan(5000);

      const { apiKey: short } = await create({ expiresInSeconds: 60 });
      const rolled = await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: short!.id, previousExpiresInSeconds: 3600, expiresInSeconds: 7200 });
      expect(rolled.previousApiKey!.expiresAt).toEqual(short!.expiresAt);
      expect(Math.abs(rolled.apiKey!.expiresAt!.getTime() - (Date.now() + 7_200_000))).toBeLessThan(5000);
    });

    it('ends the old key at once with previous_expires_in 0', async () => {
      const { apiKey, token } = await create();
      await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: apiKey!.id, previousExpiresInSeconds: 0 });
      expect(await rejection(auth.client.call.verifyApiKey({ tokenSha256: sha256(token) }))).toEqual(unknown);
    });

    it('refuses to roll a revoked or expired key (conflict)', async () => {
      const { apiKey: revoked } = await create();
      await auth.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: revoked!.id });
      expect(await rejection(auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: revoked!.id }))).toMatchObject({ code: 'conflict' });
      const { apiKey: expiring } = await create({ expiresInSeconds: 1 });
      await sleep(1100);
      expect(await rejection(auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: expiring!.id }))).toMatchObject({ code: 'conflict' });
      const { apiKey: rolledAway } = await create();
      await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: rolledAway!.id, previousExpiresInSeconds: 0 });
      expect(await rejection(auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: rolledAway!.id }))).toMatchObject({ code: 'conflict' });
    });

    it("refuses bad overlaps naming the field, and answers not_found for another organization's key", async () => {
      const { apiKey } = await create();
      for (const previousExpiresInSeconds of [-1, 604_801]) {
        expect(await rejection(auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: apiKey!.id, previousExpiresInSeconds }))).toMatchObject({
          code: 'invalid_request',
          param: 'previous_expires_in',
        });
      }
      const other = await createOrg(auth.client);
      expect(await rejection(auth.client.call.rollApiKey({ organizationId: other.id, apiKeyId: apiKey!.id }))).toMatchObject({ code: 'not_found' });
      expect(await rejection(auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: 'nope' }))).toMatchObject({ code: 'not_found' });
    });

    it('reaches watching gateways before it answers: the old key to drop and the new key to know', async () => {
      const watching = watcher(auth.client);
      await watching.ready();
      const { apiKey } = await create();
      const rolled = await auth.client.call.rollApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
      const answeredAt = Date.now();
      const message = watching.messages.find((m) => m.apiKeyId === apiKey!.id);
      expect(message?.keyFingerprints).toEqual([sha256(rolled.token).slice(0, 8)]);
      expect(message!.at).toBeLessThanOrEqual(answeredAt);
      watching.cancel();
    });
  });

  describe('per-key limits', () => {
    it("sets a key's read and write limits, tells verifiers, and goes back to the default when absent", async () => {
      const { apiKey, token } = await create();
      const watching = watcher(auth.client);
      await watching.ready();
      const set = await auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: apiKey!.id, readPerMin: 10, writePerMin: 3 });
      expect(watching.messages.some((m) => m.apiKeyId === apiKey!.id)).toBe(true);
      watching.cancel();
      expect(set.apiKey).toMatchObject({ id: apiKey!.id, readPerMin: 10, writePerMin: 3 });
      expect(await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) })).toMatchObject({ readPerMin: 10, writePerMin: 3 });
      const reset = await auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: apiKey!.id });
      expect(reset.apiKey?.readPerMin).toBeUndefined();
      const verified = await auth.client.call.verifyApiKey({ tokenSha256: sha256(token) });
      expect(verified.readPerMin).toBeUndefined();
      expect(verified.writePerMin).toBeUndefined();
    });

    it('refuses limits out of range naming the field; an operator (no organization) may set any key', async () => {
      const { apiKey } = await create();
      expect(await rejection(auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: apiKey!.id, readPerMin: 0, writePerMin: 5 }))).toMatchObject({
        code: 'invalid_request',
        param: 'read',
      });
      expect(
        await rejection(auth.client.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: apiKey!.id, readPerMin: 5, writePerMin: 1_000_001 })),
      ).toMatchObject({ code: 'invalid_request', param: 'write' });
      const other = await createOrg(auth.client);
      expect(await rejection(auth.client.call.setApiKeyLimits({ organizationId: other.id, apiKeyId: apiKey!.id, readPerMin: 5 }))).toMatchObject({
        code: 'not_found',
      });
      const byOperator = await auth.client.call.setApiKeyLimits({ organizationId: '', apiKeyId: apiKey!.id, readPerMin: 7, writePerMin: 2 });
      expect(byOperator.apiKey).toMatchObject({ organizationId: org.id, readPerMin: 7, writePerMin: 2 });
    });
  });
});
