/**
 * Issue 6's REST side: registration rules, list without secrets, test and retry (202), delivery
 * records, enable, delete; every answer checked against the OpenAPI document. Delivery behaviour
 * itself (signatures, retries, crashes) is covered under test/webhooks/.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: string;
  secret?: string;
}

let stack: Stack;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  api = client(stack.url, (await stack.createKey(org.id)).token);
});

afterAll(async () => {
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook endpoints over REST', () => {
  it('registers an HTTPS endpoint (201, secret once), lists it without the secret, and deletes it', async () => {
    const created = await api.post<Webhook>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook', events: ['account.breached'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://127.0.0.1:9/hook', events: ['account.breached'], status: 'enabled' });
    expect(created.body.secret).toMatch(/^whsec_/);

    const list = await api.get<{ data: Webhook[]; next_cursor: string | null }>('/v1/webhooks');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((w) => w.id === created.body.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');

    const deleted = await api.delete<{ id: string; deleted: boolean }>('/v1/webhooks/{id}', `/v1/webhooks/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
  });

  it.each([
    [{ url: 'http://example.com/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: 'https://example.com/hook', events: ['account.exploded'] }, 'events'],
    [{}, 'url'],
  ])('refuses %j with 400 naming %s', async (body, param) => {
    const res = await api.post<ErrorBody>('/v1/webhooks', '/v1/webhooks', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('sends a test event (202 {delivery_id, event_id}), records it, and retries it (202)', async () => {
    const created = await api.post<Webhook>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook', events: [] } });
    const test = await api.post<{ delivery_id: string; event_id: string }>('/v1/webhooks/{id}/test', `/v1/webhooks/${created.body.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body.event_id).toMatch(/^evt_/);

    let deliveries: Array<{ id: string; event_id: string }> = [];
    for (let i = 0; i < 20 && deliveries.length === 0; i += 1) {
      const res = await api.get<{ data: Array<{ id: string; event_id: string }> }>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${created.body.id}/deliveries`);
      expect(res.status).toBe(200);
      deliveries = res.body.data;
      if (deliveries.length === 0) await sleep(100);
    }
    expect(deliveries.map((d) => d.id)).toContain(test.body.delivery_id);

    const retry = await api.post<{ delivery_id: string; event_id: string }>(
      '/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
      `/v1/webhooks/${created.body.id}/deliveries/${test.body.delivery_id}/retry`,
    );
    expect(retry.status).toBe(202);
    expect(retry.body.event_id).toBe(test.body.event_id);

    const enabled = await api.post<Webhook>('/v1/webhooks/{id}/enable', `/v1/webhooks/${created.body.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.status).toBe('enabled');
    const redeliver = await api.post<Webhook>('/v1/webhooks/{id}/enable', `/v1/webhooks/${created.body.id}/enable`, {
      body: { redeliver_since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(redeliver.status).toBe(200);
    const badSince = await api.post<ErrorBody>('/v1/webhooks/{id}/enable', `/v1/webhooks/${created.body.id}/enable`, {
      body: { redeliver_since: 'yesterday' },
    });
    expect(badSince.status).toBe(400);
    expect(badSince.body.error.param).toBe('redeliver_since');
  });

  it("answers an unknown or another organization's endpoint 404", async () => {
    const other = await stack.createOrg();
    const otherApi = client(stack.url, (await stack.createKey(other.id)).token);
    const created = await api.post<Webhook>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook' } });
    const foreign = await otherApi.delete<ErrorBody>('/v1/webhooks/{id}', `/v1/webhooks/${created.body.id}`);
    expect(foreign.status).toBe(404);
    const deliveries = await otherApi.get<ErrorBody>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${created.body.id}/deliveries`);
    expect(deliveries.status).toBe(404);
  });

  it('requires accounts:write to register and accounts:read to list', async () => {
    const org = await stack.createOrg();
    const readOnly = client(stack.url, (await stack.createKey(org.id, ['accounts:read'])).token);
    const res = await readOnly.post<ErrorBody>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook' } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('accounts:write');
    expect((await readOnly.get('/v1/webhooks')).status).toBe(200);
  });
});
