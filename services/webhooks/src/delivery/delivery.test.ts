import { webhooksv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { startHarness, type Harness } from '../test/harness';
import { verifyWebhook } from '../verify';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.teardown();
});

async function register(org: string, path: string, events: string[] = []) {
  const created = await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: h.receiver.url(path), events });
  return { id: created.endpoint!.id, secret: created.secret };
}

async function deliveries(org: string, endpointId: string, filter: { status?: webhooksv1.DeliveryStatus; eventType?: string } = {}) {
  const res = await h.client.call.listDeliveries({
    organizationId: org,
    mode: Mode.MODE_LIVE,
    endpointId,
    pageSize: 200,
    pageToken: '',
    status: filter.status ?? webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
    eventType: filter.eventType ?? '',
  });
  return res.deliveries;
}

describe('delivering events', () => {
  it('delivers a breach event signed, with the exact envelope and headers', async () => {
    const org = h.org();
    const { secret } = await register(org, '/signed');
    const data = { account: 1000123, trader_id: 'trd_1', status: 'breached', reason: 'max_daily_loss', equity: '94000.00', balance: '95000.00', peak_equity: '100000.00' };
    const { id } = h.accounts.publish({ type: 'account.breached', organizationId: org, data, sequence: 7 });
    const [req] = await h.receiver.waitFor(1, '/signed');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('PropDesk-Webhooks/1');
    expect(req.headers['x-service-id']).toBe(id);
    expect(Math.abs(Number(req.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret });
    expect(verified.ok).toBe(true);
    const body = JSON.parse(req.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'organization_id', 'livemode', 'sequence', 'data']);
    expect(body).toMatchObject({ id, type: 'account.breached', organization_id: org, livemode: true, sequence: 7, data });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('delivers only the subscribed types, and nothing to other organizations', async () => {
    const org = h.org();
    await register(org, '/filtered', ['position.opened']);
    h.accounts.publish({ type: 'account.created', organizationId: org });
    h.accounts.publish({ type: 'position.opened', organizationId: h.org() });
    const { id } = h.accounts.publish({ type: 'position.opened', organizationId: org });
    const marker = h.org();
    await register(marker, '/filtered-marker');
    h.accounts.publish({ type: 'account.created', organizationId: marker });
    await h.receiver.waitFor(1, '/filtered-marker');
    const got = h.receiver.received('/filtered');
    expect(got.map((r) => r.headers['x-service-id'])).toEqual([id]);
  });

  it('sends a signed test event recorded as a delivery', async () => {
    const org = h.org();
    const endpoint = await register(org, '/test-event', ['account.passed', 'account.breached']);
    const sent = await h.client.call.sendTestEvent({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint.id });
    expect(sent.eventId).toMatch(/^evt_/);
    const [req] = await h.receiver.waitFor(1, '/test-event');
    const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret: endpoint.secret });
    expect(verified.ok && verified.event).toMatchObject({ id: sent.eventId, type: 'account.passed', organization_id: org });
    const recorded = await waitUntil(async () => {
      const list = await deliveries(org, endpoint.id);
      return list[0]?.status === webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED && list;
    });
    expect(recorded[0]).toMatchObject({ id: sent.deliveryId, eventId: sent.eventId, eventType: 'account.passed', attempt: 1, responseStatus: 200, error: '' });
  });

  it('retries a receiver that always answers 500 exactly per the schedule, then marks the delivery failed', async () => {
    const org = h.org();
    h.receiver.on('/always-500', () => ({ status: 500 }));
    const endpoint = await register(org, '/always-500');
    const { id } = h.accounts.publish({ type: 'account.created', organizationId: org });
    const attempts = await h.receiver.waitFor(4, '/always-500', 20_000);
    const failed = await waitUntil(async () => {
      const [d] = await deliveries(org, endpoint.id);
      return d?.status === webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED && d;
    });
    expect(failed).toMatchObject({ eventId: id, attempt: 4, responseStatus: 500, error: 'HTTP 500' });
    expect(failed.nextAttemptAt).toBeUndefined();
    // Same id and body every time, roughly a second apart (schedule 1,1,1 with ±10% jitter).
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers['x-service-id']))).toEqual(new Set([id]));
    for (let i = 1; i < attempts.length; i += 1) expect(attempts[i].receivedAt - attempts[i - 1].receivedAt).toBeGreaterThanOrEqual(850);
    await new Promise((r) => setTimeout(r, 2500));
    expect(h.receiver.received('/always-500')).toHaveLength(4);
    // Filters: by status and by event type.
    expect(await deliveries(org, endpoint.id, { status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED })).toHaveLength(1);
    expect(await deliveries(org, endpoint.id, { status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED })).toHaveLength(0);
    expect(await deliveries(org, endpoint.id, { eventType: 'account.breached' })).toHaveLength(0);
  });

  it('redelivers one delivery on request, with the same id and body', async () => {
    const org = h.org();
    let answer = 500;
    h.receiver.on('/retry-me', () => ({ status: answer }));
    const endpoint = await register(org, '/retry-me');
    h.accounts.publish({ type: 'account.archived', organizationId: org });
    const [failed] = await waitUntil(async () => {
      const list = await deliveries(org, endpoint.id, { status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED });
      return list.length === 1 && list;
    });
    answer = 200;
    const retried = await h.client.call.retryDelivery({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint.id, deliveryId: failed.id });
    expect(retried).toEqual({ deliveryId: failed.id, eventId: failed.eventId });
    const all = await h.receiver.waitFor(5, '/retry-me');
    expect(new Set(all.map((r) => r.body)).size).toBe(1);
    const done = await waitUntil(async () => {
      const [d] = await deliveries(org, endpoint.id);
      return d.status === webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED && d;
    });
    expect(done).toMatchObject({ attempt: 5, responseStatus: 200 });
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const org = h.org();
    h.receiver.on('/redirect', () => ({ status: 302, headers: { location: '/redirect-target' } }));
    const endpoint = await register(org, '/redirect');
    h.accounts.publish({ type: 'account.created', organizationId: org });
    await h.receiver.waitFor(1, '/redirect');
    const [d] = await waitUntil(async () => {
      const list = await deliveries(org, endpoint.id);
      return list[0]?.attempt >= 1 && list;
    });
    expect(d.responseStatus).toBe(302);
    expect(h.receiver.received('/redirect-target')).toHaveLength(0);
  });

  it('disables an endpoint that answers 410 Gone and delivers nothing more to it', async () => {
    const org = h.org();
    h.receiver.on('/gone', () => ({ status: 410 }));
    const endpoint = await register(org, '/gone');
    h.accounts.publish({ type: 'account.created', organizationId: org });
    await h.receiver.waitFor(1, '/gone');
    await waitUntil(async () => {
      const { endpoints } = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' });
      return endpoints[0].status === webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED;
    });
    h.accounts.publish({ type: 'account.created', organizationId: org });
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.receiver.received('/gone')).toHaveLength(1);
    // Re-enabling with redeliver_since brings back what was missed.
    h.receiver.on('/gone', () => ({ status: 200 }));
    const enabled = await h.client.call.enableEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint.id, redeliverSince: new Date(Date.now() - 60_000) });
    expect(enabled.endpoint?.status).toBe(webhooksv1.EndpointStatus.ENDPOINT_STATUS_ENABLED);
    await h.receiver.waitFor(3, '/gone');
    await waitUntil(async () => {
      const list = await deliveries(org, endpoint.id, { status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED });
      return list.length === 2;
    });
  });

  it('honours Retry-After on 429 within the schedule bounds', async () => {
    const org = h.org();
    let first = true;
    h.receiver.on('/busy', () => {
      if (first) {
        first = false;
        return { status: 429, headers: { 'retry-after': '3600' } };
      }
      return { status: 200 };
    });
    const endpoint = await register(org, '/busy');
    h.accounts.publish({ type: 'account.created', organizationId: org });
    const two = await h.receiver.waitFor(2, '/busy', 10_000);
    // Capped at the schedule's largest step (1 s), not the hour asked for.
    expect(two[1].receivedAt - two[0].receivedAt).toBeLessThan(3000);
    await waitUntil(async () => (await deliveries(org, endpoint.id))[0]?.status === webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED);
  });

  it('a hanging receiver does not delay deliveries to another endpoint', async () => {
    const slowOrg = h.org();
    const fastOrg = h.org();
    h.receiver.on('/hang', () => 'hang');
    await register(slowOrg, '/hang');
    await register(fastOrg, '/fast');
    for (let i = 0; i < 20; i += 1) h.accounts.publish({ type: 'account.created', organizationId: slowOrg });
    await h.receiver.waitFor(4, '/hang');
    const publishedAt = Date.now();
    h.accounts.publish({ type: 'account.created', organizationId: fastOrg });
    const [fast] = await h.receiver.waitFor(1, '/fast', 5000);
    expect(fast.receivedAt - publishedAt).toBeLessThan(1000);
    // The per-endpoint cap (4) holds: the hanging endpoint never gets more.
    expect(h.receiver.received('/hang')).toHaveLength(4);
  });
});
