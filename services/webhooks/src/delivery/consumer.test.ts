import { Client } from 'pg';
import { webhooksv1 } from '@propdesk/proto';
import { createLogger, Mode } from '@propdesk/kit';
import { start } from '../main';
import { waitUntil } from '@propdesk/kit/testing';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_DISABLE_AFTER_HOURS: String(1.5 / 3600) });
});
afterAll(async () => {
  await h?.teardown();
});

const quiet = () => createLogger('webhooks-replica', { level: 'silent' });

async function storedPosition(): Promise<number> {
  const pg = new Client({ connectionString: h.db.url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ position: string }>("SELECT position FROM webhooks.consumer_offsets WHERE name = 'accounts-events'");
    return Number(rows[0]?.position ?? 0);
  } finally {
    await pg.end();
  }
}

describe('consuming the accounts event stream', () => {
  it('persists its position and resumes from it after a restart, without redelivering', async () => {
    const org = h.org();
    await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url('/resume'), events: [] });
    const before = h.accounts.publish({ type: 'account.created', organizationId: org });
    await h.receiver.waitFor(1, '/resume');
    await waitUntil(async () => (await storedPosition()) >= before.position);

    await h.service.stop();
    const missed = [1, 2, 3].map(() => h.accounts.publish({ type: 'account.created', organizationId: org }));
    h.replaceService(await start(h.env, { logger: quiet() }));
    const got = await h.receiver.waitFor(4, '/resume');
    // Deliveries to one endpoint run concurrently, so the missed events may arrive in any order.
    expect(got[0].headers['x-service-id']).toBe(before.id);
    expect(got.slice(1).map((r) => r.headers['x-service-id']).sort()).toEqual(missed.map((m) => m.id).sort());
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.received('/resume')).toHaveLength(4);
  });

  it('reconnects when the accounts stream breaks', async () => {
    const org = h.org();
    await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url('/reconnect'), events: [] });
    const opened = h.accounts.streamsOpened();
    h.accounts.dropStreams();
    await waitUntil(async () => h.accounts.streamsOpened() > opened);
    const { id } = h.accounts.publish({ type: 'account.created', organizationId: org });
    const [req] = await h.receiver.waitFor(1, '/reconnect');
    expect(req.headers['x-service-id']).toBe(id);
  });

  it('with two replicas only one consumes; the other takes over when it goes', async () => {
    const org = h.org();
    await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url('/replicas'), events: [] });
    const replica = await start(h.env, { logger: quiet() });
    try {
      const opened = h.accounts.streamsOpened();
      await new Promise((r) => setTimeout(r, 1500));
      expect(h.accounts.streamsOpened()).toBe(opened);
      await h.service.stop();
      await waitUntil(async () => h.accounts.streamsOpened() > opened);
      const { id } = h.accounts.publish({ type: 'account.created', organizationId: org });
      const [req] = await h.receiver.waitFor(1, '/replicas');
      expect(req.headers['x-service-id']).toBe(id);
    } finally {
      await h.service.stop();
      h.replaceService(replica);
    }
  });

  it('disables an endpoint with no success for the configured time and stops its pending deliveries', async () => {
    const org = h.org();
    h.receiver.on('/dead', () => ({ status: 500 }));
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url('/dead'), events: [] });
    h.accounts.publish({ type: 'account.created', organizationId: org });
    await waitUntil(async () => {
      const { endpoints } = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' });
      return endpoints[0].status === webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED;
    }, { timeoutMs: 15_000 });
    const attempts = h.receiver.received('/dead').length;
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThan(4);
    const { deliveries } = await h.client.call.listDeliveries({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id, pageSize: 0, pageToken: '', status: 0, eventType: '' });
    expect(deliveries[0].status).toBe(webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED);
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.receiver.received('/dead')).toHaveLength(attempts);
  });
});
