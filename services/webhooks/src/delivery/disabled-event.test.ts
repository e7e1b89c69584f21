import { Client } from 'pg';
import { Mode } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { webhooksv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';

/**
 * SPEC 17's webhook_endpoint.disabled: the disabling transaction records it in the service's own
 * outbox, the forwarder hands it to the accounts outbox (here the double, which streams it back
 * like the real one), and the consumer fans it out to the organization's other endpoints of the
 * same mode. Forwarding again (a failure, a crash before marking it forwarded) never doubles it.
 */
let h: Harness;

beforeAll(async () => {
  // No success for 1.5 s disables an endpoint (the production default is 120 hours).
  h = await startHarness({ WEBHOOK_DISABLE_AFTER_HOURS: String(1.5 / 3600) });
});
afterAll(async () => {
  await h?.teardown();
});

const LIVE = Mode.MODE_LIVE;

async function sql<T extends Record<string, unknown>>(query: string, values: unknown[] = []): Promise<T[]> {
  const pg = new Client({ connectionString: h.db.url });
  await pg.connect();
  try {
    return (await pg.query<T>(query, values)).rows;
  } finally {
    await pg.end();
  }
}

async function register(org: string, path: string, events: string[] = [], mode = LIVE): Promise<string> {
  const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode, url: h.receiver.url(path), events });
  return endpoint!.id;
}

async function disabledEventsAbout(endpointId: string): Promise<Array<{ id: string; organizationId: string; livemode: boolean; data: Record<string, unknown> }>> {
  return h.accounts
    .appendCalls()
    .filter((e) => e.type === 'webhook_endpoint.disabled' && (e.data as { id?: string }).id === endpointId)
    .map((e) => ({ id: e.id, organizationId: e.organizationId, livemode: e.livemode, data: e.data as Record<string, unknown> }));
}

describe('webhook_endpoint.disabled', () => {
  it('reaches the feed (the accounts outbox) and the organization’s other endpoints of its mode, not the disabled one', async () => {
    const org = h.org();
    h.receiver.on('/down', () => ({ status: 500 }));
    const dead = await register(org, '/down', ['account.created']);
    await register(org, '/watcher');
    await register(org, '/subscribed', ['webhook_endpoint.disabled']);
    await register(org, '/elsewhere', ['account.created', 'account.breached']);
    await register(org, '/test-mode', [], Mode.MODE_TEST);
    await register(h.org(), '/stranger');

    h.accounts.publish({ type: 'account.created', organizationId: org });
    await waitUntil(async () => (await disabledEventsAbout(dead)).length > 0, { timeoutMs: 20_000, what: 'the disabled event to be forwarded' });
    const [event] = await disabledEventsAbout(dead);
    expect(event).toMatchObject({ organizationId: org, livemode: true, data: { id: dead, url: h.receiver.url('/down'), reason: 'no successful delivery for too long' } });
    expect(event.id).toMatch(/^evt_/);

    const disabledAt = (path: string) => h.receiver.received(path).filter((r) => JSON.parse(r.body).type === 'webhook_endpoint.disabled');
    const [watched] = await waitUntil(async () => disabledAt('/watcher')[0] && disabledAt('/watcher'), { timeoutMs: 20_000 });
    const [subscribed] = await h.receiver.waitFor(1, '/subscribed', 20_000);
    for (const req of [watched, subscribed]) {
      expect(JSON.parse(req.body)).toMatchObject({ id: event.id, type: 'webhook_endpoint.disabled', organization_id: org, livemode: true, sequence: null, data: event.data });
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.receiver.received('/elsewhere').filter((r) => JSON.parse(r.body).type === 'webhook_endpoint.disabled')).toEqual([]);
    expect(h.receiver.received('/test-mode')).toEqual([]);
    expect(h.receiver.received('/stranger')).toEqual([]);
    // The disabled endpoint is not even given a skipped delivery of it.
    const { deliveries } = await h.client.call.listDeliveries({ organizationId: org, mode: LIVE, endpointId: dead, pageSize: 0, pageToken: '', status: 0, eventType: '' });
    expect(deliveries.map((d) => d.eventType)).toEqual(['account.created']);
    const { endpoint } = await h.client.call.getEndpoint({ organizationId: org, mode: LIVE, endpointId: dead });
    expect(endpoint?.status).toBe(webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED);
  });

  it('is forwarded once the accounts service answers again, and a second hand-over never doubles it', async () => {
    const org = h.org();
    h.receiver.on('/gone', () => ({ status: 410 }));
    h.accounts.failAppends(true);
    const gone = await register(org, '/gone');
    await register(org, '/peer');
    h.accounts.publish({ type: 'account.archived', organizationId: org });
    await waitUntil(async () => (await sql<{ n: string }>(`SELECT count(*) AS n FROM webhooks.outbox WHERE data->>'id' = $1`, [gone]))[0].n === '1', {
      what: 'the disabling to record its event',
    });
    // The accounts service is away: the event waits in the outbox, nothing is lost.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await sql<{ forwarded_at: Date | null }>(`SELECT forwarded_at FROM webhooks.outbox WHERE data->>'id' = $1`, [gone]))[0].forwarded_at).toBeNull();
    h.accounts.failAppends(false);
    await waitUntil(async () => (await disabledEventsAbout(gone)).length > 0, { timeoutMs: 20_000 });
    const [first] = await disabledEventsAbout(gone);
    expect(first.data).toMatchObject({ id: gone, reason: 'endpoint answered 410 Gone' });
    const isDisabledEvent = (body: string) => JSON.parse(body).type === 'webhook_endpoint.disabled';
    await waitUntil(async () => h.receiver.received('/peer').some((r) => isDisabledEvent(r.body)));

    // As if the process died after the hand-over but before marking it: it is sent again, and skipped.
    await sql(`UPDATE webhooks.outbox SET forwarded_at = NULL WHERE data->>'id' = $1`, [gone]);
    await waitUntil(async () => (await disabledEventsAbout(gone)).length === 2, { timeoutMs: 20_000, what: 'the event to be sent again' });
    expect((await disabledEventsAbout(gone)).map((e) => e.id)).toEqual([first.id, first.id]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.receiver.received('/peer').filter((r) => isDisabledEvent(r.body))).toHaveLength(1);
  });
});
