import { AppError, Mode } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { webhooksv1 } from '@propdesk/proto';
import { Client } from 'pg';
import { startHarness, type Harness } from '../test/harness';

/**
 * SPEC 17's endpoint operations against the real service, a real HTTPS receiver and the accounts
 * stream double: UpdateEndpoint (AIP-134 mask, registration's rules, deliveries follow the new
 * url) and RecoverFailedDeliveries (only what failed since `since`, once, within its bounds).
 */
let h: Harness;

beforeAll(async () => {
  // Four attempts a second apart: a delivery to a failing receiver is failed within seconds.
  h = await startHarness({ WEBHOOK_EGRESS_PORTS: '443' });
});
afterAll(async () => {
  await h?.teardown();
});

const LIVE = Mode.MODE_LIVE;
const FAILED = webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED;
const SUCCEEDED = webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED;

async function rejection(p: Promise<unknown>): Promise<{ code: string; param?: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('expected a rejection');
}

const update = (org: string, endpointId: string, fields: Partial<webhooksv1.UpdateEndpointRequest>, mode = LIVE) =>
  h.client.call.updateEndpoint({ organizationId: org, mode, endpointId, url: '', events: [], description: '', ...fields });

async function deliveries(org: string, endpointId: string): Promise<webhooksv1.Delivery[]> {
  const page = await h.client.call.listDeliveries({ organizationId: org, mode: LIVE, endpointId, pageSize: 200, pageToken: '', status: 0, eventType: '' });
  return page.deliveries;
}

async function secretSealed(endpointId: string): Promise<string> {
  const pg = new Client({ connectionString: h.db.url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks.endpoints WHERE id = $1', [endpointId]);
    return rows[0].secret_sealed;
  } finally {
    await pg.end();
  }
}

describe('UpdateEndpoint', () => {
  it('changes only the fields its mask names, keeps the secret, and answers the egress warnings of the url as it now is', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({
      organizationId: org,
      mode: LIVE,
      url: 'https://hooks.example.com/a',
      events: ['account.breached'],
      description: 'risk desk',
    });
    const id = endpoint!.id;
    const sealed = await secretSealed(id);

    const moved = await update(org, id, { url: 'HTTPS://Hooks.Example.COM:8443/b', updateMask: ['url'] });
    expect(moved.endpoint).toMatchObject({ url: 'https://hooks.example.com:8443/b', events: ['account.breached'], description: 'risk desk' });
    expect(moved.warnings).toEqual([expect.stringContaining('8443')]);

    const retyped = await update(org, id, { events: ['account.passed', 'account.passed', 'account.created'], updateMask: ['events'] });
    expect(retyped.endpoint).toMatchObject({ url: 'https://hooks.example.com:8443/b', events: ['account.passed', 'account.created'], description: 'risk desk' });
    expect(retyped.warnings).toHaveLength(1);

    const all = await update(org, id, { url: 'https://hooks.example.com/c', events: [], description: 'every event', updateMask: ['url', 'events', 'description'] });
    expect(all).toMatchObject({ endpoint: { url: 'https://hooks.example.com/c', events: [], description: 'every event' }, warnings: [] });
    const cleared = await update(org, id, { description: '', updateMask: ['description'] });
    expect(cleared.endpoint).toMatchObject({ url: 'https://hooks.example.com/c', description: '' });

    const { endpoint: read } = await h.client.call.getEndpoint({ organizationId: org, mode: LIVE, endpointId: id });
    expect(read).toMatchObject({ url: 'https://hooks.example.com/c', events: [], description: '', status: webhooksv1.EndpointStatus.ENDPOINT_STATUS_ENABLED });
    expect(await secretSealed(id)).toBe(sealed);
  });

  it('follows registration’s rules and refuses an empty or unknown mask', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: 'https://hooks.example.com/r', events: [] });
    const id = endpoint!.id;
    for (const url of ['http://hooks.example.com/', 'hooks', 'https://user:pw@example.com/', ' https://example.com/', '']) {
      expect(await rejection(update(org, id, { url, updateMask: ['url'] }))).toEqual({ code: 'invalid_request', param: 'url' });
    }
    expect(await rejection(update(org, id, { events: ['account.nope'], updateMask: ['events'] }))).toEqual({ code: 'invalid_request', param: 'events' });
    for (const description of ['   ', 'two\nlines', 'x'.repeat(257), 'tab\there']) {
      expect(await rejection(update(org, id, { description, updateMask: ['description'] }))).toEqual({ code: 'invalid_request', param: 'description' });
    }
    expect(await rejection(update(org, id, { url: 'https://hooks.example.com/x', updateMask: [] }))).toEqual({ code: 'invalid_request', param: 'update_mask' });
    expect(await rejection(update(org, id, { updateMask: ['secret'] }))).toEqual({ code: 'invalid_request', param: 'update_mask' });
    // Nothing was changed by the refusals.
    const { endpoint: read } = await h.client.call.getEndpoint({ organizationId: org, mode: LIVE, endpointId: id });
    expect(read).toMatchObject({ url: 'https://hooks.example.com/r', events: [], description: '' });
  });

  it('is not_found for another organization’s, the other mode’s, a deleted or a malformed endpoint', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: 'https://hooks.example.com/n', events: [] });
    const change = { description: 'mine', updateMask: ['description'] };
    expect(await rejection(update(h.org(), endpoint!.id, change))).toMatchObject({ code: 'not_found' });
    expect(await rejection(update(org, endpoint!.id, change, Mode.MODE_TEST))).toMatchObject({ code: 'not_found' });
    expect(await rejection(update(org, 'not-a-uuid', change))).toMatchObject({ code: 'not_found' });
    await h.client.call.deleteEndpoint({ organizationId: org, mode: LIVE, endpointId: endpoint!.id });
    expect(await rejection(update(org, endpoint!.id, change))).toMatchObject({ code: 'not_found' });
  });

  it('sends the deliveries not yet made to the new url', async () => {
    const org = h.org();
    h.receiver.on('/old', () => ({ status: 503 }));
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: h.receiver.url('/old'), events: [] });
    const { id } = h.accounts.publish({ type: 'account.created', organizationId: org });
    await h.receiver.waitFor(1, '/old');
    await update(org, endpoint!.id, { url: h.receiver.url('/new'), updateMask: ['url'] });
    const [req] = await h.receiver.waitFor(1, '/new');
    expect(req.headers['x-service-id']).toBe(id);
    await waitUntil(async () => (await deliveries(org, endpoint!.id))[0]?.status === SUCCEEDED);
  });
});

describe('RecoverFailedDeliveries', () => {
  const recover = (org: string, endpointId: string, since: Date | undefined, mode = LIVE) =>
    h.client.call.recoverFailedDeliveries({ organizationId: org, mode, endpointId, since });

  /** Publishes `count` events and waits until each delivery to the endpoint failed (retries spent). */
  async function failedBatch(org: string, endpointId: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => h.accounts.publish({ type: 'account.created', organizationId: org }).id);
    await waitUntil(
      async () => {
        const mine = (await deliveries(org, endpointId)).filter((d) => ids.includes(d.eventId));
        return mine.length === count && mine.every((d) => d.status === FAILED);
      },
      { timeoutMs: 20_000, what: 'the batch to fail' },
    );
    return ids;
  }

  it('attempts again, once, only the failed deliveries whose last attempt was at or after since', async () => {
    const org = h.org();
    let answer = 500;
    h.receiver.on('/outage', () => ({ status: answer }));
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: h.receiver.url('/outage'), events: [] });
    const id = endpoint!.id;
    const before = await failedBatch(org, id, 2);
    const since = new Date();
    const during = await failedBatch(org, id, 3);
    answer = 200; // the receiver is back
    const delivered = h.receiver.received('/outage').length;

    // Two calls at once: the second waits for the first and finds them pending, not failed.
    const [first, second] = await Promise.all([recover(org, id, since), recover(org, id, since)]);
    expect(first.redelivered + second.redelivered).toBe(3);
    expect([first.redelivered, second.redelivered]).toContain(0);

    const got = await h.receiver.waitFor(delivered + 3, '/outage');
    expect(got.slice(delivered).map((r) => r.headers['x-service-id']).sort()).toEqual([...during].sort());
    await waitUntil(async () => {
      const all = await deliveries(org, id);
      return during.every((e) => all.find((d) => d.eventId === e)?.status === SUCCEEDED);
    });
    const all = await deliveries(org, id);
    expect(before.map((e) => all.find((d) => d.eventId === e)?.status)).toEqual([FAILED, FAILED]);
    // Succeeded deliveries are not attempted again; the earlier failures are still there for an earlier since.
    expect(await recover(org, id, since)).toEqual({ redelivered: 0 });
    expect(await recover(org, id, new Date(since.getTime() - 60_000))).toEqual({ redelivered: 2 });
  });

  it('refuses a since that is missing, in the future or more than 14 days back, naming since', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: 'https://hooks.example.com/bounds', events: [] });
    const day = 86_400_000;
    for (const since of [undefined, new Date(Date.now() + 60_000), new Date(Date.now() - 14 * day - 60_000)]) {
      expect(await rejection(recover(org, endpoint!.id, since))).toEqual({ code: 'invalid_request', param: 'since' });
    }
    expect(await recover(org, endpoint!.id, new Date(Date.now() - 14 * day + 60_000))).toEqual({ redelivered: 0 });
  });

  it('is not_found for another organization’s or the other mode’s endpoint, and conflict for a disabled one', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: LIVE, url: 'https://hooks.example.com/scope', events: [] });
    const since = new Date(Date.now() - 60_000);
    expect(await rejection(recover(h.org(), endpoint!.id, since))).toMatchObject({ code: 'not_found' });
    expect(await rejection(recover(org, endpoint!.id, since, Mode.MODE_TEST))).toMatchObject({ code: 'not_found' });
    const pg = new Client({ connectionString: h.db.url });
    await pg.connect();
    await pg.query(`UPDATE webhooks.endpoints SET status = 'disabled' WHERE id = $1`, [endpoint!.id]).finally(() => pg.end());
    expect(await rejection(recover(org, endpoint!.id, since))).toMatchObject({ code: 'conflict' });
  });
});
