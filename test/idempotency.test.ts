/**
 * Issue 3 item 7: every write accepts Idempotency-Key, scoped to the API key. A retry returns the
 * first answer byte for byte; another body under the same key is 409 idempotency_key_reused;
 * concurrent duplicates execute once.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface Account {
  number: number;
}

let stack: Stack;
let orgId: string;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 100 })).id;
  token = (await stack.createKey(orgId)).token;
});

afterAll(async () => {
  await stack?.stop();
});

async function accountCount(): Promise<number> {
  const res = await client(stack.url, token).get<{ data: Account[] }>('/v1/accounts', '/v1/accounts?limit=200');
  return res.body.data.length;
}

describe('Idempotency-Key', () => {
  it('replays the first answer byte for byte and executes once', async () => {
    const api = client(stack.url, token);
    const headers = { 'idempotency-key': 'create-2-accounts' };
    const before = await accountCount();
    const first = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 2 }, headers });
    const retry = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 2 }, headers });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(await accountCount()).toBe(before + 2);
  });

  it('answers the same key with another body 409 idempotency_key_reused', async () => {
    const api = client(stack.url, token);
    const headers = { 'idempotency-key': 'reused-key' };
    await api.post('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers });
    const other = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 3 }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('executes concurrent duplicates once and gives each the same answer', async () => {
    const api = client(stack.url, token);
    const before = await accountCount();
    const headers = { 'idempotency-key': 'concurrent-duplicates' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers })));
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(answer.text).toBe(answers[0]?.text);
    }
    expect(await accountCount()).toBe(before + 1);
  });

  it('scopes keys to the API key: another key with the same Idempotency-Key executes on its own', async () => {
    const otherToken = (await stack.createKey(orgId)).token;
    const headers = { 'idempotency-key': 'per-api-key' };
    const a = await client(stack.url, token).post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers });
    const b = await client(stack.url, otherToken).post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.data[0]?.number).not.toBe(a.body.data[0]?.number);
  });

  it('replays a stored 4xx answer too', async () => {
    const api = client(stack.url, token);
    const headers = { 'idempotency-key': 'bad-request-once' };
    const first = await api.put<ErrorBody>('/v1/accounts/{number}/trader', '/v1/accounts/999999/trader', { body: { name: 'N', email: 'n@example.com' }, headers });
    const retry = await api.put<ErrorBody>('/v1/accounts/{number}/trader', '/v1/accounts/999999/trader', { body: { name: 'N', email: 'n@example.com' }, headers });
    expect(first.status).toBe(404);
    expect(retry.text).toBe(first.text);
  });

  describe('decided by the service that owns the effect', () => {
    it('replays a committed write from the owner\'s record, the gateway keeping none', async () => {
      const api = client(stack.url, token);
      const headers = { 'idempotency-key': 'owner-replays-provisioning' };
      const before = await accountCount();
      const first = await api.post('/v1/accounts', '/v1/accounts', { body: { count: 2 }, headers });
      const retry = await api.post('/v1/accounts', '/v1/accounts', { body: { count: 2 }, headers });
      expect(first.status).toBe(201);
      expect(retry.text).toBe(first.text);
      expect(await accountCount()).toBe(before + 2);
    });

    it('claims once: a retried claim answers the same account and trader', async () => {
      const api = client(stack.url, token);
      await api.post('/v1/accounts', '/v1/accounts', { body: { count: 2 } });
      const headers = { 'idempotency-key': 'owner-replays-claim' };
      const body = { name: 'Claire Once', email: 'claire.once@example.com' };
      const first = await api.post('/v1/accounts/claim', '/v1/accounts/claim', { body, headers });
      const retries = await Promise.all(Array.from({ length: 3 }, () => api.post('/v1/accounts/claim', '/v1/accounts/claim', { body, headers })));
      expect(first.status).toBe(200);
      for (const retry of retries) expect(retry.text).toBe(first.text);
      const held = await api.get<{ data: Account[] }>('/v1/accounts', '/v1/accounts?assigned=true&limit=200');
      expect(held.body.data.length).toBe(1);
    });

    it('answers another body under the key 409 idempotency_key_reused from the owner too', async () => {
      const api = client(stack.url, token);
      const headers = { 'idempotency-key': 'owner-reused' };
      await api.post('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers });
      const other = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 2 }, headers });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_key_reused');
    });

    it('answers a retried close with the first answer, not 409 "already closed", and trades once', async () => {
      const api = client(stack.url, token);
      const [number] = await stack.createAccounts(orgId, 1);
      await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1002, time: new Date() } });
      const positions = `/v1/accounts/${number}/positions`;
      const orderHeaders = { 'idempotency-key': 'owner-order' };
      const opened = await api.post<{ id: string }>('/v1/accounts/{number}/positions', positions, { body: { symbol: 'EURUSD', side: 'buy', volume: 1 }, headers: orderHeaders });
      const reopened = await api.post('/v1/accounts/{number}/positions', positions, { body: { symbol: 'EURUSD', side: 'buy', volume: 1 }, headers: orderHeaders });
      expect(opened.status).toBe(201);
      expect(reopened.text).toBe(opened.text);
      const closePath = `${positions}/${opened.body.id}/close`;
      const closeHeaders = { 'idempotency-key': 'owner-close' };
      const closed = await api.post('/v1/accounts/{number}/positions/{id}/close', closePath, { headers: closeHeaders });
      const retried = await api.post('/v1/accounts/{number}/positions/{id}/close', closePath, { headers: closeHeaders });
      expect(closed.status).toBe(200);
      expect(retried.text).toBe(closed.text);
      const list = await api.get<{ data: unknown[] }>('/v1/accounts/{number}/positions', `${positions}?status=closed`);
      expect(list.body.data).toHaveLength(1);
      const events = await api.get<{ data: Array<{ type: string; data: { account?: number } }> }>('/v1/events', '/v1/events?limit=200');
      const ofAccount = events.body.data.filter((e) => e.data.account === number).map((e) => e.type).sort();
      expect(ofAccount).toEqual(['account.created', 'position.closed', 'position.opened']);
    });

    it('takes the same body in another key order as the same request', async () => {
      const api = client(stack.url, token);
      const headers = { 'idempotency-key': 'canonical-body', 'content-type': 'application/json' };
      const first = await api.post('/v1/accounts', '/v1/accounts', { body: { count: 1, initial_balance: 5000 }, headers });
      const again = await api.post('/v1/accounts', '/v1/accounts', { body: { initial_balance: 5000, count: 1 }, headers });
      expect(first.status).toBe(201);
      expect(again.text).toBe(first.text);
    });
  });

  it.each(['', 'x'.repeat(256)])('answers an Idempotency-Key of length %# 400 naming the header', async (key) => {
    const res = await client(stack.url, token).post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 1 }, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });
});
