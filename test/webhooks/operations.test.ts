/**
 * SPEC 17's webhook operations through the whole stack: after a receiver's outage, recover sends
 * what failed to the receiver that now answers 200; an endpoint disabled by its failures emits
 * webhook_endpoint.disabled into the event feed (served by the accounts service from its outbox)
 * and to the organization's other endpoints of the same mode, signed like any other event.
 */
import { generateCertificate, startHttpsReceiver, waitUntil, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '../../services/webhooks/src/verify';
import { startStack, type Stack } from '../support/stack';
import { client } from '../support/http';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  // Three attempts a second apart. Disabling by time is the webhooks service's own suite's
  // (delivery/disabled-event.test.ts); here a receiver's 410 Gone disables at once.
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_INTERVAL_MS: '200' } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

interface Created {
  id: string;
  secret: string;
}
interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
}

async function organization(): Promise<{ id: string; api: ReturnType<typeof client>; testApi: ReturnType<typeof client> }> {
  const org = await stack.createOrg();
  return {
    id: org.id,
    api: client(stack.url, (await stack.createKey(org.id)).token),
    testApi: client(stack.url, (await stack.createKey(org.id, undefined, 'sandbox', { mode: 'test' })).token),
  };
}

async function register(api: ReturnType<typeof client>, path: string, events: string[] = []): Promise<Created> {
  const res = await api.post<Created>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url(path), events } });
  expect(res.status).toBe(201);
  return res.body;
}

async function deliveries(api: ReturnType<typeof client>, id: string): Promise<Delivery[]> {
  const res = await api.get<{ data: Delivery[] }>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${id}/deliveries?limit=200`);
  return res.body.data;
}

describe('recover', () => {
  it('sends the deliveries that failed during an outage to the receiver that answers 200 again, once', async () => {
    const { api } = await organization();
    let answer = 503;
    receiver.on('/outage', () => ({ status: answer }));
    const hook = await register(api, '/outage', ['account.created']);
    const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 3 } });
    expect(created.status).toBe(201);
    await waitUntil(async () => {
      const all = await deliveries(api, hook.id);
      return all.length === 3 && all.every((d) => d.status === 'failed') && all;
    }, { timeoutMs: 30_000, what: 'the deliveries to fail' });
    const failedAttempts = receiver.received('/outage').length;

    answer = 200;
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await api.post<{ redelivered: number }>('/v1/webhooks/{id}/recover', `/v1/webhooks/${hook.id}/recover`, { body: { since } });
    expect([recovered.status, recovered.body]).toEqual([202, { redelivered: 3 }]);
    const got = await receiver.waitFor(failedAttempts + 3, '/outage', 30_000);
    const events = got.slice(failedAttempts).map((r) => {
      const verified = verifyWebhook({ rawBody: r.body, headers: r.headers, secret: hook.secret });
      if (!verified.ok) throw new Error(verified.reason);
      return verified.event.data.account as number;
    });
    expect(events.sort()).toEqual(created.body.data.map((a) => a.number).sort());
    await waitUntil(async () => (await deliveries(api, hook.id)).every((d) => d.status === 'succeeded'), { what: 'the recovered deliveries to succeed' });
    const again = await api.post<{ redelivered: number }>('/v1/webhooks/{id}/recover', `/v1/webhooks/${hook.id}/recover`, { body: { since } });
    expect(again.body).toEqual({ redelivered: 0 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received('/outage')).toHaveLength(failedAttempts + 3);
  });
});

describe('webhook_endpoint.disabled', () => {
  it('reaches the event feed and the organization’s other endpoints of the mode, and nobody else', async () => {
    const { id: orgId, api, testApi } = await organization();
    const stranger = await organization();
    receiver.on('/dead', () => ({ status: 410 }));
    const dead = await register(api, '/dead', ['account.created']);
    const watcher = await register(api, '/watcher', ['webhook_endpoint.disabled']);
    await register(api, '/uninterested', ['account.breached']);
    await register(testApi, '/test-watcher');
    await register(stranger.api, '/stranger-watcher');

    await api.post('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    const feed = await waitUntil(
      async () => {
        const res = await api.get<{ data: Array<{ id: string; type: string; livemode: boolean; sequence: number | null; data: Record<string, unknown> }> }>(
          '/v1/events',
          '/v1/events?type=webhook_endpoint.disabled',
        );
        return res.body.data.length > 0 && res.body.data;
      },
      { timeoutMs: 40_000, what: 'webhook_endpoint.disabled in the feed' },
    );
    expect(feed).toHaveLength(1);
    expect(feed[0]).toMatchObject({ type: 'webhook_endpoint.disabled', livemode: true, sequence: null, data: { id: dead.id, url: receiver.url('/dead'), reason: 'endpoint answered 410 Gone' } });

    const [delivered] = await receiver.waitFor(1, '/watcher', 30_000);
    const verified = verifyWebhook({ rawBody: delivered.body, headers: delivered.headers, secret: watcher.secret });
    if (!verified.ok) throw new Error(verified.reason);
    expect(verified.event).toMatchObject({ id: feed[0].id, type: 'webhook_endpoint.disabled', organization_id: orgId, livemode: true, data: feed[0].data });

    const listed = await api.get<{ data: Array<{ id: string; status: string }> }>('/v1/webhooks', '/v1/webhooks');
    expect(listed.body.data.find((w) => w.id === dead.id)?.status).toBe('disabled');
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received('/uninterested')).toEqual([]);
    expect(receiver.received('/test-watcher')).toEqual([]);
    expect(receiver.received('/stranger-watcher')).toEqual([]);
    expect((await deliveries(api, dead.id)).map((d) => d.event_type)).toEqual(['account.created']);
    const testFeed = await testApi.get<{ data: unknown[] }>('/v1/events', '/v1/events?type=webhook_endpoint.disabled');
    expect(testFeed.body.data).toEqual([]);
  });
});
