/**
 * SPEC 13 across services: webhooks follow the mode. Real events from the accounts service flow
 * to a real HTTPS receiver; an endpoint registered with a test key receives only the
 * organization's test events, one registered with a live key only live events, each envelope
 * signed and carrying livemode. Endpoints, deliveries and cursors of one mode are 404 or
 * invalid_cursor to the other, over REST and in the panel.
 */
import { startStack, type Stack } from '../support/stack';
import { client, request, type ErrorBody } from '../support/http';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook, type VerifiedEvent } from '../../services/webhooks/src/verify';

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let orgId: string;
let live: ReturnType<typeof client>;
let test: ReturnType<typeof client>;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_INTERVAL_MS: '200' } });
  orgId = (await stack.createOrg()).id;
  live = client(stack.url, (await stack.createKey(orgId)).token);
  test = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

interface Endpoint {
  id: string;
  secret: string;
  livemode: boolean;
}

async function register(api: ReturnType<typeof client>, path: string): Promise<Endpoint> {
  const res = await api.post<Endpoint>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url(path), events: ['account.created', 'account.breached'] } });
  expect(res.status).toBe(201);
  return res.body;
}

function envelope(req: ReceivedRequest, secret: string): VerifiedEvent {
  const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret });
  if (!verified.ok) throw new Error(`signature check failed: ${verified.reason}`);
  return verified.event;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks by mode', () => {
  it('deliver test events only to the test endpoint and live events only to the live one', async () => {
    const liveHook = await register(live, '/by-mode/live');
    const testHook = await register(test, '/by-mode/test');
    expect([liveHook.livemode, testHook.livemode]).toEqual([true, false]);

    const testAccounts = (await test.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 2 } })).body.data.map((a) => a.number);
    await test.post('/v1/accounts/{number}/breach', `/v1/accounts/${testAccounts[0]}/breach`, { body: { reason: 'test-mode breach' } });
    const liveAccounts = (await live.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data.map((a) => a.number);

    const toTest = (await receiver.waitFor(3, '/by-mode/test', 30_000)).map((r) => envelope(r, testHook.secret));
    const toLive = (await receiver.waitFor(1, '/by-mode/live', 30_000)).map((r) => envelope(r, liveHook.secret));
    expect(toTest.map((e) => [e.type, e.data.account]).sort()).toEqual(
      [['account.breached', testAccounts[0]], ['account.created', testAccounts[0]], ['account.created', testAccounts[1]]].sort(),
    );
    expect(toTest.every((e) => e.livemode === false)).toBe(true);
    expect(toLive.map((e) => [e.type, e.data.account, e.livemode])).toEqual([['account.created', liveAccounts[0], true]]);

    // Give a stray delivery the time to arrive: none does.
    await sleep(1500);
    expect(receiver.received('/by-mode/live')).toHaveLength(1);
    expect(receiver.received('/by-mode/test')).toHaveLength(3);

    const deliveries = await test.get<{ data: Array<{ event_id: string }> }>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${testHook.id}/deliveries`);
    expect(deliveries.body.data.map((d) => d.event_id).sort()).toEqual(toTest.map((e) => e.id).sort());
  });

  it('keep each mode’s endpoints apart: listed in one mode, 404 on every route of the other', async () => {
    const testHook = await register(test, '/apart/test');
    const liveHook = await register(live, '/apart/live');
    const ids = async (api: ReturnType<typeof client>) => (await api.get<{ data: Array<{ id: string }> }>('/v1/webhooks', '/v1/webhooks?limit=200')).body.data.map((e) => e.id);
    expect(await ids(test)).toContain(testHook.id);
    expect(await ids(test)).not.toContain(liveHook.id);
    expect(await ids(live)).not.toContain(testHook.id);

    const routes: Array<[string, string, string, unknown?]> = [
      ['get', '/v1/webhooks/{id}/deliveries', '/deliveries'],
      ['post', '/v1/webhooks/{id}/test', '/test'],
      ['post', '/v1/webhooks/{id}/enable', '/enable'],
      ['post', '/v1/webhooks/{id}/rotate-secret', '/rotate-secret', {}],
      ['post', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', '/deliveries/00000000-0000-4000-8000-000000000000/retry'],
      ['delete', '/v1/webhooks/{id}', ''],
    ];
    for (const [api, id] of [
      [live, testHook.id],
      [test, liveHook.id],
    ] as const) {
      for (const [method, template, suffix, body] of routes) {
        const res = await api[method as 'get']<ErrorBody>(template, `/v1/webhooks/${id}${suffix}`, body === undefined ? undefined : { body });
        expect({ template, status: res.status, code: res.body.error?.code }).toEqual({ template, status: 404, code: 'not_found' });
      }
    }

    const livePage = await live.get<{ next_cursor: string | null }>('/v1/webhooks', '/v1/webhooks?limit=1');
    const crossed = await test.get<ErrorBody>('/v1/webhooks', `/v1/webhooks?limit=1&cursor=${encodeURIComponent(livePage.body.next_cursor!)}`);
    expect(crossed.status).toBe(400);
    expect(crossed.body.error.code).toBe('invalid_cursor');
  });

  it('show in the panel the endpoints of the mode it is switched to', async () => {
    const owner = await stack.createUser(orgId, { role: 'owner' });
    const cookie = await stack.panelLogin(owner.email, owner.password);
    const panel = (mode?: string) =>
      request<{ data: Array<{ id: string; livemode: boolean }> }>(stack.url, 'GET', '/panel/api/webhooks?limit=200', { headers: { cookie, ...(mode ? { 'x-propdesk-mode': mode } : {}) } });
    const testSide = (await panel('test')).body.data;
    const liveSide = (await panel()).body.data;
    expect(testSide.length).toBeGreaterThan(0);
    expect(testSide.every((e) => e.livemode === false)).toBe(true);
    expect(liveSide.every((e) => e.livemode === true)).toBe(true);
    const one = await request<ErrorBody>(stack.url, 'GET', `/panel/api/webhooks/${testSide[0].id}`, { headers: { cookie } });
    expect(one.status).toBe(404);
  });
});
