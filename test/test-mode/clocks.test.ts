/**
 * SPEC 13's test clocks over HTTP, through the whole stack: the routes and their errors (a live
 * key is 403 naming test mode on every one of them, another organization's clock is 404), an
 * account on a clock and its JSON, a clock's own prices, an advance seen from the event feed and
 * webhook registration. Every answer is checked against the OpenAPI document.
 */
import { waitUntil } from '@propdesk/kit/testing';
import { client, type ErrorBody } from '../support/http';
import { startStack, type Stack } from '../support/stack';

interface Clock {
  id: string;
  name: string | null;
  frozen_time: string;
  status: 'ready' | 'advancing';
  livemode: boolean;
  created_at: string;
}
interface Account {
  number: number;
  status: string;
  equity: number;
  created_at: string;
  test_clock: string | null;
}
interface Event {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

let stack: Stack;
let test: ReturnType<typeof client>;
let live: ReturnType<typeof client>;
let stranger: ReturnType<typeof client>;
const START = '2025-03-05T09:30:00.000Z';

beforeAll(async () => {
  stack = await startStack();
  const org = (await stack.createOrg({ credits: 10 })).id;
  test = client(stack.url, (await stack.createKey(org, undefined, 'sandbox', { mode: 'test' })).token);
  live = client(stack.url, (await stack.createKey(org)).token);
  const other = (await stack.createOrg({ credits: 10 })).id;
  stranger = client(stack.url, (await stack.createKey(other, undefined, 'sandbox', { mode: 'test' })).token);
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.08, ask: 1.0801 } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const expectError = (res: { status: number; body: unknown }, status: number, code: string, param?: string) => {
  const error = (res.body as ErrorBody).error;
  expect({ status: res.status, code: error?.code, ...(param ? { param: error?.param } : {}) }).toEqual({ status, code, ...(param ? { param } : {}) });
};

async function newClock(body: Record<string, unknown> = { frozen_time: START }): Promise<Clock> {
  const res = await test.post<Clock>('/v1/test_clocks', '/v1/test_clocks', { body });
  expect(res.status).toBe(201);
  return res.body;
}

describe('test clock routes', () => {
  it('create, read, list and delete a clock', async () => {
    const clock = await newClock({ frozen_time: START, name: 'Integration walk' });
    expect(clock).toEqual({ id: expect.stringMatching(/^clock_/), name: 'Integration walk', frozen_time: START, status: 'ready', livemode: false, created_at: expect.any(String) });
    expect((await test.get<Clock>('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`)).body).toEqual(clock);
    const unnamed = await newClock({});
    expect(unnamed).toMatchObject({ name: null, status: 'ready' });
    expect(Math.abs(Date.parse(unnamed.frozen_time) - Date.now())).toBeLessThan(60_000);
    const first = await test.get<{ data: Clock[]; next_cursor: string | null }>('/v1/test_clocks', '/v1/test_clocks?limit=1');
    const second = await test.get<{ data: Clock[]; next_cursor: string | null }>('/v1/test_clocks', `/v1/test_clocks?limit=1&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((k) => k.id)).toEqual([clock.id, unnamed.id]);
    const deleted = await test.delete('/v1/test_clocks/{id}', `/v1/test_clocks/${unnamed.id}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: unnamed.id, deleted: true } });
    expectError(await test.get('/v1/test_clocks/{id}', `/v1/test_clocks/${unnamed.id}`), 404, 'not_found');
  });

  it('answer a live key 403 forbidden naming test mode on every route, before reading the request', async () => {
    const clock = await newClock();
    const calls = [
      live.post('/v1/test_clocks', '/v1/test_clocks', { body: { frozen_time: 'yesterday' } }),
      live.get('/v1/test_clocks', '/v1/test_clocks'),
      live.get('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`),
      live.post('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock.id}/advance`, { body: {} }),
      live.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock.id}/quotes`, { body: { symbol: 'EURUSD', bid: 1, ask: 1 } }),
      live.delete('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`),
    ];
    for (const res of await Promise.all(calls)) {
      expectError(res, 403, 'forbidden');
      expect((res.body as ErrorBody).error.message).toMatch(/test mode/);
    }
    const provision = await live.post('/v1/accounts', '/v1/accounts', { body: { count: 1, test_clock: clock.id } });
    expectError(provision, 403, 'forbidden');
    expect((provision.body as ErrorBody).error.message).toMatch(/test mode/);
    expect((await test.get<Clock>('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`)).body.status).toBe('ready');
  });

  it('answer another organization’s clock 404 and refuse bad times naming frozen_time', async () => {
    const clock = await newClock();
    expectError(await stranger.get('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`), 404, 'not_found');
    expectError(await stranger.post('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock.id}/advance`, { body: { frozen_time: '2025-03-06T00:00:00Z' } }), 404, 'not_found');
    expectError(await stranger.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock.id}/quotes`, { body: { symbol: 'EURUSD', bid: 1, ask: 1 } }), 404, 'not_found');
    expectError(await stranger.delete('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`), 404, 'not_found');
    expectError(await stranger.post('/v1/accounts', '/v1/accounts', { body: { count: 1, test_clock: clock.id } }), 400, 'invalid_request', 'test_clock');
    expectError(await test.get('/v1/test_clocks/{id}', '/v1/test_clocks/clock_unknown'), 404, 'not_found');

    const advance = (frozen_time: unknown) => test.post('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock.id}/advance`, { body: { frozen_time } });
    expectError(await advance('next tuesday'), 400, 'invalid_request', 'frozen_time');
    expectError(await advance(START), 400, 'invalid_request', 'frozen_time');
    expectError(await advance('2025-03-01T00:00:00Z'), 400, 'invalid_request', 'frozen_time');
    expectError(await advance('2026-03-06T09:30:00.001Z'), 400, 'invalid_request', 'frozen_time');
    expectError(await test.post('/v1/test_clocks', '/v1/test_clocks', { body: { frozen_time: new Date(Date.now() + 400 * 86_400_000).toISOString() } }), 400, 'invalid_request', 'frozen_time');
    expectError(await test.post('/v1/test_clocks', '/v1/test_clocks', { body: { frozen_time: '2025-13-01T00:00:00Z' } }), 400, 'invalid_request', 'frozen_time');
  });
});

describe('an account on a test clock, over HTTP', () => {
  it('shows its clock, answers the same bytes in the list and on its own, and lives at the clock’s time and prices', async () => {
    const clock = await newClock();
    const created = await test.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1, test_clock: clock.id } });
    expect(created.status).toBe(201);
    const [account] = created.body.data;
    expect(account).toMatchObject({ test_clock: clock.id, created_at: START });
    const order = await test.post<{ opened_at: string }>('/v1/accounts/{number}/positions', `/v1/accounts/${account.number}/positions`, {
      body: { symbol: 'EURUSD', side: 'buy', volume: 10, type: 'market' },
    });
    expect(order).toMatchObject({ status: 201, body: { opened_at: START } });

    const single = await test.get<Account>('/v1/accounts/{number}', `/v1/accounts/${account.number}`);
    const list = await test.get<{ data: Account[] }>('/v1/accounts', '/v1/accounts?limit=200');
    const listed = list.body.data.find((a) => a.number === account.number);
    expect(JSON.stringify(listed)).toBe(single.text);
    const plain = (await test.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data[0];
    expect(plain.test_clock).toBeNull();

    // The clock's price, answered at its time: 10 lots bought at 1.0801, now 1.0740: breached at once.
    const quote = await test.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock.id}/quotes`, { body: { symbol: 'EURUSD', bid: 1.074, ask: 1.0741 } });
    expect(quote).toMatchObject({ status: 200, body: { symbol: 'EURUSD', bid: 1.074, ask: 1.0741, time: START } });
    expect((await test.get<Account>('/v1/accounts/{number}', `/v1/accounts/${account.number}`)).body).toMatchObject({ status: 'breached', equity: 93_900 });
    expectError(await test.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock.id}/quotes`, { body: { symbol: 'NOPE', bid: 1, ask: 1 } }), 400, 'invalid_request', 'symbol');

    const events = await test.get<{ data: Event[] }>('/v1/events', '/v1/events?type=account.breached');
    expect(events.body.data.find((e) => e.data.account === account.number)).toMatchObject({ created_at: START });
  });

  it('advances across days and weekends; the feed shows each event at its simulated time and test_clock.ready at the end', async () => {
    const hook = await test.post('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://hooks.example.com/clock', events: ['test_clock.ready'] } });
    expect(hook.status).toBe(201);
    const clock = await newClock();
    const [account] = (await test.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1, test_clock: clock.id } })).body.data;
    await test.post('/v1/accounts/{number}/positions', `/v1/accounts/${account.number}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market' } });
    const target = '2025-03-12T09:30:00.000Z';
    const advancing = await test.post<Clock>('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock.id}/advance`, { body: { frozen_time: target } });
    expect(advancing).toMatchObject({ status: 200, body: { status: 'advancing', frozen_time: target } });
    await waitUntil(async () => (await test.get<Clock>('/v1/test_clocks/{id}', `/v1/test_clocks/${clock.id}`)).body.status === 'ready', { what: 'the clock ready' });

    const feed = await test.get<{ data: Event[] }>('/v1/events', '/v1/events?type=test_clock.ready');
    expect(feed.body.data.filter((e) => e.data.id === clock.id)).toEqual([expect.objectContaining({ created_at: target, data: { id: clock.id, frozen_time: target } })]);
    const flagged = await test.get<{ data: Event[] }>('/v1/events', '/v1/events?type=account.flagged');
    expect(flagged.body.data.filter((e) => e.data.account === account.number).map((e) => e.created_at)).toEqual(['2025-03-08T00:00:00.000Z']);
    const order = await test.post<{ opened_at: string }>('/v1/accounts/{number}/positions', `/v1/accounts/${account.number}/positions`, {
      body: { symbol: 'EURUSD', side: 'sell', volume: 1, type: 'market' },
    });
    expect(order.body.opened_at).toBe(target);
  });
});
