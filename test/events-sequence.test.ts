/**
 * SPEC 17's gap-proof events over REST: the envelope's `sequence` (after `livemode`) in the feed
 * and in the signed webhook body, an account's feed by `?account=&after_sequence=`, and the
 * parameters refused by name.
 */
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { verifyWebhook } from '../services/webhooks/src/verify';
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface RestEvent {
  id: string;
  type: string;
  livemode: boolean;
  sequence: number | null;
  data: { account?: number };
}
interface EventPage {
  data: RestEvent[];
  next_cursor: string | null;
}

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let api: ReturnType<typeof client>;
let testApi: ReturnType<typeof client>;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  const org = await stack.createOrg({ credits: 12 });
  api = client(stack.url, (await stack.createKey(org.id)).token);
  testApi = client(stack.url, (await stack.createKey(org.id, undefined, 'sandbox', { mode: 'test' })).token);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

/** Every page of the account's feed after `after`, `limit` at a time. */
async function accountFeed(number: number, after?: number, limit = 2): Promise<RestEvent[]> {
  const seen: RestEvent[] = [];
  let query = `account=${number}&limit=${limit}${after === undefined ? '' : `&after_sequence=${after}`}`;
  for (;;) {
    const res = await api.get<EventPage>('/v1/events', `/v1/events?${query}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    if (res.body.next_cursor === null) return seen;
    query = `account=${number}&limit=${limit}&cursor=${res.body.next_cursor}`;
  }
}

describe('sequence in the envelope', () => {
  it('numbers an account’s events 1..N in the feed and in the signed webhook body, after livemode', async () => {
    const hook = await api.post<{ id: string; secret: string }>('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url('/seq'), events: [] } });
    expect(hook.status).toBe(201);
    const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    const number = created.body.data[0].number;
    const claimed = await api.post('/v1/accounts/claim', '/v1/accounts/claim', { body: { name: 'Seq Trader', email: 'seq@example.com' } });
    expect(claimed.status).toBe(200);
    await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001, time: new Date() } });
    const opened = await api.post<{ id: string }>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, {
      body: { symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market' },
    });
    expect(opened.status).toBe(201);
    await api.post('/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/${opened.body.id}/close`);
    await api.post('/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { body: { reason: 'manual review' } });

    const feed = await accountFeed(number);
    expect(feed.map((e) => [e.type, e.sequence])).toEqual([
      ['account.created', 1],
      ['account.assigned', 2],
      ['position.opened', 3],
      ['position.closed', 4],
      ['account.breached', 5],
    ]);
    expect(feed.every((e) => e.data.account === number)).toBe(true);

    const delivered = await receiver.waitFor(5, '/seq', 30_000);
    const bodies = delivered.map((r) => {
      const verified = verifyWebhook({ rawBody: r.body, headers: r.headers, secret: hook.body.secret });
      if (!verified.ok) throw new Error(verified.reason);
      return r.body;
    });
    for (const body of bodies) {
      const parsed = JSON.parse(body) as RestEvent;
      expect(Object.keys(parsed)).toEqual(['id', 'type', 'created_at', 'organization_id', 'livemode', 'sequence', 'data']);
      expect(parsed.sequence).toBe(feed.find((e) => e.id === parsed.id)?.sequence);
    }
  });

  it('pages an account’s feed from after_sequence on; the other mode sees nothing of it', async () => {
    const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    const number = created.body.data[0].number;
    for (let i = 0; i < 4; i += 1) {
      const res = await api.put('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, { body: { name: `T${i}`, email: `t${i}@example.com` } });
      expect(res.status).toBe(200);
    }
    expect((await accountFeed(number)).map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect((await accountFeed(number, 2, 1)).map((e) => e.sequence)).toEqual([3, 4, 5]);
    expect(await accountFeed(number, 5)).toEqual([]);
    const typed = await api.get<EventPage>('/v1/events', `/v1/events?account=${number}&type=account.assigned&after_sequence=3`);
    expect(typed.body.data.map((e) => e.sequence)).toEqual([4, 5]);
    const otherMode = await testApi.get<EventPage>('/v1/events', `/v1/events?account=${number}`);
    expect(otherMode.status).toBe(200);
    expect(otherMode.body.data).toEqual([]);
  });

  it('events about no account carry sequence null (credits.low)', async () => {
    const org = await stack.createOrg({ credits: 11 });
    await stack.admin.auth.call.setCreditsLowThreshold({ organizationId: org.id, threshold: '10' });
    const key = client(stack.url, (await stack.createKey(org.id)).token);
    await key.post('/v1/accounts', '/v1/accounts', { body: { count: 2 } });
    const low = await key.get<EventPage>('/v1/events', '/v1/events?type=credits.low');
    expect(low.body.data).toHaveLength(1);
    expect(low.body.data[0].sequence).toBeNull();
  });

  it.each([
    ['account=abc', 'account'],
    ['account=0', 'account'],
    ['account=', 'account'],
    ['account=1.5', 'account'],
    ['account=1000001&after_sequence=-1', 'after_sequence'],
    ['account=1000001&after_sequence=x', 'after_sequence'],
    ['after_sequence=3', 'after_sequence'],
  ])('refuses ?%s with 400 naming %s', async (query, param) => {
    const res = await api.get<ErrorBody>('/v1/events', `/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });
});
