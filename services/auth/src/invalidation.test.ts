import type { ClientReadableStream } from '@grpc/grpc-js';
import { callMetadata, Mode, sha256Hex } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { randomUUID } from 'node:crypto';
import { createOrg, startAuthForTest, type AuthClient } from './test/harness';

interface TestWatcher {
  id: string;
  messages: Array<authv1.WatchInvalidationsResponse & { at: number }>;
  ended: Promise<{ error?: string }>;
  next(predicate: (m: authv1.WatchInvalidationsResponse) => boolean, timeoutMs?: number): Promise<authv1.WatchInvalidationsResponse>;
  cancel(): void;
}

/**
 * A gateway-like watcher over a real gRPC stream. `ack` decides how it acknowledges an
 * invalidation (through which client, after which delay), or not at all.
 */
function watch(streamClient: AuthClient, ack: ((m: authv1.WatchInvalidationsResponse, id: string) => Promise<void>) | null): TestWatcher {
  const id = randomUUID();
  const messages: TestWatcher['messages'] = [];
  const listeners = new Set<() => void>();
  const stream: ClientReadableStream<authv1.WatchInvalidationsResponse> = streamClient.raw.watchInvalidations({ watcherId: id }, callMetadata());
  stream.on('data', (m: authv1.WatchInvalidationsResponse) => {
    messages.push({ ...m, at: Date.now() });
    for (const l of listeners) l();
    // Like a gateway: everything but a heartbeat is acknowledged (key fingerprints too).
    const isInvalidation = m.flushAll || m.apiKeyId !== '' || m.organizationId !== '' || m.keyFingerprints.length > 0;
    if (isInvalidation && ack) ack(m, id).catch(() => undefined);
  });
  const ended = new Promise<{ error?: string }>((resolve) => {
    stream.on('error', (err: Error) => resolve({ error: err.message }));
    stream.on('end', () => resolve({}));
  });
  return {
    id,
    messages,
    ended,
    next(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (found) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error('no such message'));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    cancel: () => stream.cancel(),
  };
}

const ackVia = (client: AuthClient, delayMs = 0, log?: number[]) => async (m: authv1.WatchInvalidationsResponse, watcherId: string) => {
  if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
  log?.push(Date.now());
  await client.call.ackInvalidation({ watcherId, seq: m.seq });
};

describe('auth service: cache invalidation for gateways', () => {
  let a: Awaited<ReturnType<typeof startAuthForTest>>;
  let b: Awaited<ReturnType<typeof startAuthForTest>>;
  const watchers: TestWatcher[] = [];

  beforeAll(async () => {
    a = await startAuthForTest({ INVALIDATION_ACK_TIMEOUT_MS: '2000', INVALIDATION_HEARTBEAT_MS: '1000' });
    // a second replica on the same database
    b = await startAuthForTest({ INVALIDATION_ACK_TIMEOUT_MS: '2000', INVALIDATION_HEARTBEAT_MS: '1000' }, a.db);
  });
  afterAll(async () => {
    for (const w of watchers) w.cancel();
    await b.stop(false);
    await a.stop();
  });

  const track = (w: TestWatcher) => {
    watchers.push(w);
    return w;
  };

  it('opens every stream with flush_all, then sends heartbeats every second with increasing seq', async () => {
    const w = track(watch(a.client, ackVia(a.client)));
    const first = await w.next(() => true);
    expect(first).toMatchObject({ seq: '1', apiKeyId: '', organizationId: '', flushAll: true });
    const beat = await w.next((m) => m.seq === '2', 2500);
    expect(beat).toMatchObject({ seq: '2', apiKeyId: '', organizationId: '', flushAll: false });
  });

  it('a revoke answers only after the watcher received and acknowledged the invalidation', async () => {
    const org = await createOrg(a.client);
    const { apiKey } = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'cached', scopes: [] });
    const acks: number[] = [];
    const w = track(watch(a.client, ackVia(a.client, 300, acks)));
    await w.next((m) => m.flushAll);
    const started = Date.now();
    await a.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    const answeredAt = Date.now();
    const pushed = w.messages.find((m) => m.apiKeyId === apiKey!.id);
    expect(pushed).toBeDefined();
    expect(pushed!.at).toBeLessThanOrEqual(answeredAt);
    expect(acks.length).toBeGreaterThanOrEqual(2); // flush_all, then the invalidation
    expect(acks[acks.length - 1]).toBeLessThanOrEqual(answeredAt);
    expect(answeredAt - started).toBeGreaterThanOrEqual(290);
  });

  it('drops a watcher that never acknowledges: its stream ends with an error and the revoke still answers within about 2 s', async () => {
    const org = await createOrg(a.client);
    const { apiKey } = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'silent', scopes: [] });
    const silent = track(watch(a.client, null));
    const healthy = track(watch(a.client, ackVia(a.client)));
    await silent.next((m) => m.flushAll);
    await healthy.next((m) => m.flushAll);
    const started = Date.now();
    await a.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(3000);
    expect((await silent.ended).error).toMatch(/dropped/);
    expect(healthy.messages.some((m) => m.apiKeyId === apiKey!.id)).toBe(true);
    // the healthy watcher is still live
    await healthy.next((m) => Number(m.seq) > 3 && !m.apiKeyId, 2500);
  });

  it('sends the fingerprints of active keys after flush_all, then each new key before CreateApiKey answers', async () => {
    const org = await createOrg(a.client);
    const kept = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'kept', scopes: [] });
    const revoked = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'revoked', scopes: [] });
    await a.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: revoked.apiKey!.id });
    const fingerprint = (token: string) => sha256Hex(token).slice(0, 8);

    const w = track(watch(b.client, ackVia(b.client)));
    await w.next((m) => m.fingerprintsComplete);
    const loaded = new Set(w.messages.flatMap((m) => m.keyFingerprints));
    expect(loaded.has(fingerprint(kept.token))).toBe(true);
    expect(loaded.has(fingerprint(revoked.token))).toBe(false);

    // Created on the other replica: relayed through NOTIFY to this stream.
    const fresh = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'fresh', scopes: [] });
    await w.next((m) => m.keyFingerprints.includes(fingerprint(fresh.token)), 3000);
    // Created on the replica holding a stream: pushed and acknowledged before the answer.
    const local = track(watch(a.client, ackVia(a.client)));
    await local.next((m) => m.fingerprintsComplete);
    const own = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'own', scopes: [] });
    expect(local.messages.some((m) => m.keyFingerprints.includes(fingerprint(own.token)))).toBe(true);
  });

  it('a plan change invalidates the whole organization', async () => {
    const org = await createOrg(a.client);
    const w = track(watch(a.client, ackVia(a.client)));
    await w.next((m) => m.flushAll);
    await a.client.call.setOrganizationPlan({ organizationId: org.id, planStatus: authv1.PlanStatus.PLAN_STATUS_UNPAID });
    expect(w.messages.some((m) => m.organizationId === org.id && m.apiKeyId === '')).toBe(true);
  });

  it('tells watchers connected to another replica, through PostgreSQL NOTIFY', async () => {
    const org = await createOrg(a.client);
    const { apiKey } = await a.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'other replica', scopes: [] });
    const onB = track(watch(b.client, ackVia(b.client)));
    await onB.next((m) => m.flushAll);
    await a.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    await onB.next((m) => m.apiKeyId === apiKey!.id, 2000);
  });

  it('accepts an acknowledgement balanced to another replica than the one holding the stream', async () => {
    const org = await createOrg(a.client);
    const { apiKey } = await b.client.call.createApiKey({ organizationId: org.id, mode: Mode.MODE_LIVE, name: 'cross ack', scopes: [] });
    const onB = track(watch(b.client, ackVia(a.client)));
    await onB.next((m) => m.flushAll);
    const started = Date.now();
    await b.client.call.revokeApiKey({ organizationId: org.id, apiKeyId: apiKey!.id });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(onB.messages.some((m) => m.apiKeyId === apiKey!.id)).toBe(true);
    let dropped = false;
    onB.ended.then(() => (dropped = true), () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(dropped).toBe(false);
  });

  it('refuses a stream without a watcher id', async () => {
    const stream = a.client.raw.watchInvalidations({ watcherId: '' }, callMetadata());
    const error = await new Promise<string>((resolve) => {
      stream.on('data', () => undefined);
      stream.on('error', (err: Error) => resolve(err.message));
    });
    expect(error).toMatch(/watcher_id/);
  });
});
