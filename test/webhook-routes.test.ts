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
let orgId: string;

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  orgId = org.id;
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

describe('changing and recovering an endpoint over REST', () => {
  const register = (body: Record<string, unknown> = {}) =>
    api.post<Webhook & { description: string | null; warnings: string[] }>('/v1/webhooks', '/v1/webhooks', {
      body: { url: 'https://127.0.0.1:9/hook', events: ['account.breached'], ...body },
    });
  const patch = <T = Webhook & { description: string | null; warnings: string[] } & ErrorBody>(id: string, body: unknown, using = api) =>
    using.patch<T>('/v1/webhooks/{id}', `/v1/webhooks/${id}`, { body });

  it('registers with a description (null without one)', async () => {
    const described = await register({ description: 'Risk desk: breaches only' });
    expect(described.status).toBe(201);
    expect(described.body.description).toBe('Risk desk: breaches only');
    expect((await register()).body.description).toBeNull();
    const bad = await register({ description: 'two\nlines' });
    expect([bad.status, (bad.body as unknown as ErrorBody).error.param]).toEqual([400, 'description']);
  });

  it('PATCH changes each field alone, keeps the others and the secret, and never answers the secret', async () => {
    const created = await register({ description: 'first' });
    const id = created.body.id;
    const url = await patch(id, { url: 'HTTPS://Example.COM:8443/moved' });
    expect(url.status).toBe(200);
    expect(url.body).toMatchObject({ id, url: 'https://example.com:8443/moved', events: ['account.breached'], description: 'first', status: 'enabled' });
    expect(url.body.warnings).toEqual([expect.stringContaining('8443')]);
    expect(url.body).not.toHaveProperty('secret');
    expect(url.text).not.toContain(created.body.secret);

    const events = await patch(id, { events: ['account.passed', 'account.created'] });
    expect(events.body).toMatchObject({ url: 'https://example.com:8443/moved', events: ['account.passed', 'account.created'], description: 'first' });
    const description = await patch(id, { description: 'second' });
    expect(description.body).toMatchObject({ url: 'https://example.com:8443/moved', events: ['account.passed', 'account.created'], description: 'second' });
    const cleared = await patch(id, { description: null, events: [] });
    expect(cleared.body).toMatchObject({ events: [], description: null });

    const listed = await api.get<{ data: Array<Webhook & { description: string | null }> }>('/v1/webhooks', '/v1/webhooks?limit=200');
    expect(listed.body.data.find((w) => w.id === id)).toMatchObject({ url: 'https://example.com:8443/moved', events: [], description: null });
  });

  it.each([
    [{}, 'body'],
    [{ secret: 'whsec_mine' }, 'secret'],
    [{ url: 'https://example.com/x', status: 'disabled' }, 'status'],
    [{ url: 'http://example.com/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: null }, 'url'],
    [{ events: ['account.exploded'] }, 'events'],
    [{ events: 'account.created' }, 'events'],
    [{ description: '   ' }, 'description'],
    [{ description: 'x'.repeat(257) }, 'description'],
    [{ description: 7 }, 'description'],
  ])('PATCH refuses %j with 400 naming %s, changing nothing', async (body, param) => {
    const created = await register({ description: 'unchanged' });
    const res = await patch(created.body.id, body);
    expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([400, 'invalid_request', param]);
    const listed = await api.get<{ data: Array<Webhook & { description: string | null }> }>('/v1/webhooks', '/v1/webhooks?limit=200');
    expect(listed.body.data.find((w) => w.id === created.body.id)).toMatchObject({ url: 'https://127.0.0.1:9/hook', events: ['account.breached'], description: 'unchanged' });
  });

  it('PATCH with a lone surrogate in the description is refused (it would be stored as U+FFFD)', async () => {
    const created = await register();
    const res = await api.patch<ErrorBody>('/v1/webhooks/{id}', `/v1/webhooks/${created.body.id}`, { body: '{"description":"bad \\ud800 half"}' });
    expect([res.status, res.body.error.param]).toEqual([400, 'description']);
  });

  it("PATCH and recover answer 404 for another organization's or the other mode's endpoint, and need accounts:write", async () => {
    const created = await register();
    const other = await stack.createOrg();
    const otherApi = client(stack.url, (await stack.createKey(other.id)).token);
    const testApi = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
    for (const using of [otherApi, testApi]) {
      expect((await patch(created.body.id, { description: 'theirs' }, using)).status).toBe(404);
      const recovered = await using.post<ErrorBody>('/v1/webhooks/{id}/recover', `/v1/webhooks/${created.body.id}/recover`, { body: { since: new Date().toISOString() } });
      expect(recovered.status).toBe(404);
    }
    expect((await patch('00000000-0000-0000-0000-000000000000', { description: 'none' })).status).toBe(404);
    const readOnly = client(stack.url, (await stack.createKey(other.id, ['accounts:read'])).token);
    const refused = await patch<ErrorBody>(created.body.id, { description: 'x' }, readOnly);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'missing_scope']);
  });

  it('recover answers 202 {redelivered} and refuses a since that is missing, malformed, in the future or older than 14 days', async () => {
    const created = await register();
    const recover = (body: unknown) =>
      api.post<{ redelivered: number } & ErrorBody>('/v1/webhooks/{id}/recover', `/v1/webhooks/${created.body.id}/recover`, body === undefined ? {} : { body });
    const ok = await recover({ since: new Date(Date.now() - 3_600_000).toISOString() });
    expect([ok.status, ok.body]).toEqual([202, { redelivered: 0 }]);
    const day = 86_400_000;
    for (const body of [
      undefined,
      {},
      { since: 'yesterday' },
      { since: 1700000000 },
      { since: new Date(Date.now() + 120_000).toISOString() },
      { since: new Date(Date.now() - 15 * day).toISOString() },
    ]) {
      const res = await recover(body);
      expect([JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.param]).toEqual([JSON.stringify(body), 400, 'invalid_request', 'since']);
    }
    const unknown = await recover({ since: new Date().toISOString(), all: true });
    expect([unknown.status, unknown.body.error?.param]).toEqual([400, 'all']);
  });
});
