import { AppError, Mode } from '@propdesk/kit';
import { bufCurl } from '@propdesk/kit/testing';
import { webhooksv1 } from '@propdesk/proto';
import { Client } from 'pg';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
});
afterAll(async () => {
  await h?.teardown();
});

async function rejection(p: Promise<unknown>): Promise<{ code: string; param?: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('webhook endpoints', () => {
  it('registers an endpoint and shows its secret once', async () => {
    const org = h.org();
    const created = await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/in', events: ['account.breached'] });
    // whsec_ + base64 of 32 random bytes (SPEC section 12)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.endpoint).toMatchObject({
      organizationId: org,
      url: 'https://hooks.example.com/in',
      events: ['account.breached'],
      status: webhooksv1.EndpointStatus.ENDPOINT_STATUS_ENABLED,
    });
    const listed = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' });
    expect(listed.endpoints).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
  });

  it('stores the secret sealed, never in clear', async () => {
    const created = await h.client.call.createEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/sealed', events: [] });
    const pg = new Client({ connectionString: h.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks.endpoints WHERE id = $1', [created.endpoint!.id]);
      expect(rows[0].secret_sealed).not.toContain(created.secret);
      expect(rows[0].secret_sealed).not.toContain('whsec_');
    } finally {
      await pg.end();
    }
  });

  it('refuses non-https, malformed, over-long and private-address URLs with invalid_request on url', async () => {
    for (const url of ['http://hooks.example.com/', 'hooks', `https://example.com/${'x'.repeat(2050)}`, 'https://127.1/', 'https://[::ffff:10.0.0.1]/', 'https://2130706433/']) {
      expect(await rejection(h.client.call.createEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, url, events: [] }))).toEqual({ code: 'invalid_request', param: 'url' });
    }
  });

  it('refuses unknown event types with invalid_request on events', async () => {
    expect(await rejection(h.client.call.createEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/', events: ['account.nope'] }))).toEqual({
      code: 'invalid_request',
      param: 'events',
    });
  });

  it('pages endpoints with an opaque cursor bound to the organization', async () => {
    const org = h.org();
    for (let i = 0; i < 5; i += 1) await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: `https://hooks.example.com/${i}`, events: [] });
    const first = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: '' });
    const second = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: first.nextPageToken });
    const third = await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: second.nextPageToken });
    expect([...first.endpoints, ...second.endpoints, ...third.endpoints].map((e) => e.url)).toEqual([0, 1, 2, 3, 4].map((i) => `https://hooks.example.com/${i}`));
    expect(third.nextPageToken).toBe('');
    expect(await rejection(h.client.call.listEndpoints({ organizationId: h.org(), mode: Mode.MODE_LIVE, pageSize: 2, pageToken: first.nextPageToken }))).toMatchObject({ code: 'invalid_cursor' });
    expect(await rejection(h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: `${first.nextPageToken}x` }))).toMatchObject({ code: 'invalid_cursor' });
  });

  it('deletes softly: gone from the list, a second delete and another organization get not_found', async () => {
    const org = h.org();
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/del', events: [] });
    expect(await rejection(h.client.call.deleteEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, endpointId: endpoint!.id }))).toMatchObject({ code: 'not_found' });
    expect((await h.client.call.getEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id })).endpoint).toMatchObject({ url: 'https://hooks.example.com/del' });
    await h.client.call.deleteEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id });
    expect(await rejection(h.client.call.getEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id }))).toMatchObject({ code: 'not_found' });
    expect((await h.client.call.listEndpoints({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '' })).endpoints).toHaveLength(0);
    expect(await rejection(h.client.call.deleteEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: endpoint!.id }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(h.client.call.deleteEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, endpointId: 'not-a-uuid' }))).toMatchObject({ code: 'not_found' });
  });

  it("hides another organization's endpoint from every call", async () => {
    const { endpoint } = await h.client.call.createEndpoint({ organizationId: h.org(), mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/mine', events: [] });
    const other = h.org();
    const id = endpoint!.id;
    expect(await rejection(h.client.call.listDeliveries({ organizationId: other, mode: Mode.MODE_LIVE, endpointId: id, pageSize: 0, pageToken: '', status: 0, eventType: '' }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(h.client.call.getEndpoint({ organizationId: other, mode: Mode.MODE_LIVE, endpointId: id }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(h.client.call.sendTestEvent({ organizationId: other, mode: Mode.MODE_LIVE, endpointId: id }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(h.client.call.enableEndpoint({ organizationId: other, mode: Mode.MODE_LIVE, endpointId: id }))).toMatchObject({ code: 'not_found' });
    expect(await rejection(h.client.call.retryDelivery({ organizationId: other, mode: Mode.MODE_LIVE, endpointId: id, deliveryId: id }))).toMatchObject({ code: 'not_found' });
  });
});

describe('webhooks through gRPC reflection (buf curl)', () => {
  it('describes the service well enough for a client without .proto files to call it', async () => {
    const services = await bufCurl(h.service.address, '', ['--list-services']);
    expect(services.stdout.trim().split('\n').sort()).toEqual(['grpc.health.v1.Health', 'propdesk.webhooks.v1.WebhooksService']);
    const org = h.org();
    await h.client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: 'https://hooks.example.com/reflected', events: [] });
    const listed = await bufCurl(h.service.address, 'propdesk.webhooks.v1.WebhooksService/ListEndpoints', ['-d', JSON.stringify({ organization_id: org })]);
    expect(listed).toMatchObject({ exitCode: 0 });
    expect(JSON.parse(listed.stdout).endpoints).toEqual([expect.objectContaining({ url: 'https://hooks.example.com/reflected', organizationId: org })]);
  });
});
