/**
 * Issue 6 across services: real accounts events (provisioning, a manual breach) flow through the
 * accounts event stream into the webhooks service and out to an HTTPS receiver that verifies
 * every signature; REST records, test event and type filtering through the gateway.
 */
import { startStack, type Stack } from '../support/stack';
import { client } from '../support/http';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '../../services/webhooks/src/verify';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let api: ReturnType<typeof client>;
let orgId: string;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_INTERVAL_MS: '200' } });
  const org = await stack.createOrg();
  orgId = org.id;
  api = client(stack.url, (await stack.createKey(org.id)).token);
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

async function register(path: string, events: string[]): Promise<Created> {
  const res = await api.post<Created>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url(path), events } });
  expect(res.status).toBe(201);
  return res.body;
}

function envelope(req: ReceivedRequest, secret: string): { id: string; type: string; organization_id: string; data: Record<string, unknown> } {
  const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret });
  if (!verified.ok) throw new Error(`signature check failed: ${verified.reason}`);
  expect(req.headers['x-service-id']).toBe(verified.event.id);
  return verified.event;
}

describe('webhooks end to end', () => {
  it('delivers account.created for provisioned accounts and account.breached with its data, signed', async () => {
    const hook = await register('/e2e', ['account.created', 'account.breached']);
    const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 2 } });
    expect(created.status).toBe(201);
    const numbers = created.body.data.map((a) => a.number);
    const breach = await api.post('/v1/accounts/{number}/breach', `/v1/accounts/${numbers[0]}/breach`, { body: { reason: 'manual review' } });
    expect(breach.status).toBe(200);

    const got = await receiver.waitFor(3, '/e2e', 30_000);
    const events = got.map((r) => envelope(r, hook.secret));
    expect(events.filter((e) => e.type === 'account.created').map((e) => e.data.account).sort()).toEqual([...numbers].sort());
    const breached = events.find((e) => e.type === 'account.breached');
    expect(breached).toBeDefined();
    expect(breached!.organization_id).toBe(orgId);
    expect(breached!.id).toMatch(/^evt_/);
    expect(breached!.data).toMatchObject({ account: numbers[0], status: 'breached', reason: 'manual review' });
    for (const field of ['trader_id', 'equity', 'balance', 'peak_equity']) expect(breached!.data).toHaveProperty(field);

    const records = await api.get<{ data: Array<{ event_id: string; status: string; attempt: number; response_status: number | null }> }>(
      '/v1/webhooks/{id}/deliveries',
      `/v1/webhooks/${hook.id}/deliveries`,
    );
    expect(records.status).toBe(200);
    expect(records.body.data.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    const breachRecords = await api.get<{ data: Array<{ event_type: string }> }>(
      '/v1/webhooks/{id}/deliveries',
      `/v1/webhooks/${hook.id}/deliveries?event_type=account.breached`,
    );
    expect(breachRecords.body.data.map((d) => d.event_type)).toEqual(['account.breached']);
  });

  it('filters by type: an endpoint for account.breached hears nothing of provisioning', async () => {
    const onlyBreaches = await register('/only-breaches', ['account.breached']);
    const everything = await register('/everything', []);
    const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    await receiver.waitFor(1, '/everything', 30_000);
    await api.post('/v1/accounts/{number}/breach', `/v1/accounts/${created.body.data[0].number}/breach`, { body: { reason: 'filter check' } });
    const [breach] = await receiver.waitFor(1, '/only-breaches', 30_000);
    expect(envelope(breach, onlyBreaches.secret).type).toBe('account.breached');
    await receiver.waitFor(2, '/everything', 30_000);
    expect(receiver.received('/only-breaches')).toHaveLength(1);
    expect(everything.secret).not.toBe(onlyBreaches.secret);
  });

  it('sends a signed test event (202) recorded like any delivery, and retries a failing receiver per the schedule', async () => {
    let answer = 500;
    receiver.on('/flaky', () => ({ status: answer }));
    const hook = await register('/flaky', []);
    const sent = await api.post<{ delivery_id: string; event_id: string }>('/v1/webhooks/{id}/test', `/v1/webhooks/${hook.id}/test`);
    expect(sent.status).toBe(202);
    const attempts = await receiver.waitFor(3, '/flaky', 30_000);
    expect(attempts.map((a) => envelope(a, hook.secret).id)).toEqual([sent.body.event_id, sent.body.event_id, sent.body.event_id]);
    const failed = async () =>
      (await api.get<{ data: Array<{ id: string; status: string; attempt: number }> }>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${hook.id}/deliveries?status=failed`)).body.data;
    for (let i = 0; i < 50 && (await failed()).length === 0; i += 1) await new Promise((r) => setTimeout(r, 200));
    expect(await failed()).toMatchObject([{ id: sent.body.delivery_id, status: 'failed', attempt: 3 }]);
    answer = 200;
    const retry = await api.post<{ delivery_id: string }>(
      '/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
      `/v1/webhooks/${hook.id}/deliveries/${sent.body.delivery_id}/retry`,
    );
    expect(retry.status).toBe(202);
    const all = await receiver.waitFor(4, '/flaky', 30_000);
    expect(new Set(all.map((a) => a.body)).size).toBe(1);
  });
});
