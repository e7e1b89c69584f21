/**
 * SPEC 13 over HTTP: test mode is a partition of the organization, not a copy. A live key and a
 * test key of the same organization each see only their own mode's accounts, traders, programs,
 * events and payouts — in lists, filters, by-number and by-id routes, cursors and claims — and
 * the other mode's object is 404 not_found exactly like another organization's. Every answer is
 * checked against the OpenAPI document.
 */
import { startStack, type Stack } from '../support/stack';
import { client, request, type ErrorBody } from '../support/http';

interface Account {
  number: number;
  status: string;
  trader_id: string | null;
  livemode: boolean;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

let stack: Stack;
let orgId: string;
let live: ReturnType<typeof client>;
let test: ReturnType<typeof client>;
let liveNumbers: number[];
let testNumbers: number[];

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 100 })).id;
  live = client(stack.url, (await stack.createKey(orgId)).token);
  test = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
  liveNumbers = (await live.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 3 } })).body.data.map((a) => a.number);
  const created = await test.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 3 } });
  expect(created.status).toBe(201);
  testNumbers = created.body.data.map((a) => a.number);
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function all<T>(api: ReturnType<typeof client>, template: string, path: string, limit = 2): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: { status: number; body: Page<T> } = await api.get<Page<T>>(template, `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return items;
}

const notFound = async (promise: Promise<{ status: number; body: unknown }>) => {
  const res = await promise;
  expect({ status: res.status, code: (res.body as ErrorBody).error?.code }).toEqual({ status: 404, code: 'not_found' });
};

describe('accounts', () => {
  it('are created in the key’s mode and listed, page by page, in it alone', async () => {
    expect(new Set([...liveNumbers, ...testNumbers]).size).toBe(6);
    const testListed = await all<Account>(test, '/v1/accounts', '/v1/accounts');
    expect(testListed.map((a) => a.number)).toEqual(testNumbers);
    expect(testListed.every((a) => a.livemode === false)).toBe(true);
    const liveListed = await all<Account>(live, '/v1/accounts', '/v1/accounts');
    expect(liveListed.map((a) => a.number)).toEqual(liveNumbers);
    expect(liveListed.every((a) => a.livemode === true)).toBe(true);
    for (const filter of ['status=active', 'assigned=false']) {
      expect((await all<Account>(test, '/v1/accounts', `/v1/accounts?${filter}`)).map((a) => a.number)).toEqual(testNumbers);
    }
  });

  it('stay apart when live and test lists arrive together and share one coalesced call', async () => {
    const burst = await Promise.all(
      Array.from({ length: 24 }, (_v, i) => (i % 2 === 0 ? live : test).get<Page<Account>>('/v1/accounts', `/v1/accounts?limit=${i % 3 === 0 ? 2 : 50}`)),
    );
    burst.forEach((res, i) => {
      const mine = i % 2 === 0 ? liveNumbers : testNumbers;
      expect(res.status).toBe(200);
      expect(res.body.data.map((a) => a.number)).toEqual(mine.slice(0, i % 3 === 0 ? 2 : 50));
      expect(res.body.data.every((a) => a.livemode === (i % 2 === 0))).toBe(true);
    });
  });

  it('answer the other mode’s account 404 on every by-number route, both ways', async () => {
    const routes: Array<[string, string, string, Record<string, unknown>?]> = [
      ['get', '/v1/accounts/{number}', ''],
      ['get', '/v1/accounts/{number}/report', '/report'],
      ['get', '/v1/accounts/{number}/trades', '/trades'],
      ['get', '/v1/accounts/{number}/positions', '/positions'],
      ['get', '/v1/accounts/{number}/flags', '/flags'],
      ['get', '/v1/accounts/{number}/analytics', '/analytics'],
      ['get', '/v1/accounts/{number}/equity', '/equity'],
      ['get', '/v1/accounts/{number}/payouts', '/payouts'],
      ['get', '/v1/accounts/{number}/credentials', '/credentials'],
      ['post', '/v1/accounts/{number}/credentials/rotate', '/credentials/rotate'],
      ['put', '/v1/accounts/{number}/trader', '/trader', { name: 'Eve', email: 'eve@example.com' }],
      ['delete', '/v1/accounts/{number}/trader', '/trader'],
      ['post', '/v1/accounts/{number}/archive', '/archive'],
      ['post', '/v1/accounts/{number}/breach', '/breach', { reason: 'cross-mode' }],
      ['post', '/v1/accounts/{number}/reset', '/reset'],
      ['post', '/v1/accounts/{number}/payouts', '/payouts', {}],
      ['post', '/v1/accounts/{number}/positions', '/positions', { symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market' }],
    ];
    for (const [api, number] of [
      [live, testNumbers[0]],
      [test, liveNumbers[0]],
    ] as const) {
      for (const [method, template, suffix, body] of routes) {
        await notFound(api[method as 'get'](template, `/v1/accounts/${number}${suffix}`, body ? { body } : undefined));
      }
    }
    // Nothing changed behind the refusals.
    const untouched = await test.get<Account>('/v1/accounts/{number}', `/v1/accounts/${testNumbers[0]}`);
    expect(untouched.body).toMatchObject({ status: 'active', trader_id: null, livemode: false });
  });

  it('refuse a cursor of the other mode with invalid_cursor', async () => {
    const livePage = await live.get<Page<Account>>('/v1/accounts', '/v1/accounts?limit=1');
    const res = await test.get<ErrorBody>('/v1/accounts', `/v1/accounts?limit=1&cursor=${encodeURIComponent(livePage.body.next_cursor!)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
    const testEvents = await test.get<Page<unknown>>('/v1/events', '/v1/events?limit=1');
    const back = await live.get<ErrorBody>('/v1/events', `/v1/events?limit=1&cursor=${encodeURIComponent(testEvents.body.next_cursor!)}`);
    expect(back.status).toBe(400);
    expect(back.body.error.code).toBe('invalid_cursor');
  });

  it('are claimed only within the mode, by a trader of the mode', async () => {
    const org = (await stack.createOrg()).id;
    const liveKey = client(stack.url, (await stack.createKey(org)).token);
    const testKey = client(stack.url, (await stack.createKey(org, undefined, 'sandbox', { mode: 'test' })).token);
    await liveKey.post('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    const none = await testKey.post<ErrorBody>('/v1/accounts/claim', '/v1/accounts/claim', { body: { name: 'Ann', email: 'ann@example.com' } });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('no_unassigned_accounts');
    const [own] = (await testKey.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data;
    const claimed = await testKey.post<{ account: Account; trader: { id: string; livemode: boolean } }>('/v1/accounts/claim', '/v1/accounts/claim', {
      body: { name: 'Ann', email: 'ann@example.com' },
    });
    expect(claimed.status).toBe(200);
    expect(claimed.body.account.number).toBe(own.number);
    expect(claimed.body.trader.livemode).toBe(false);
    const liveUnassigned = await liveKey.get<Page<Account>>('/v1/accounts', '/v1/accounts?assigned=false');
    expect(liveUnassigned.body.data).toHaveLength(1);
  });
});

describe('traders, programs and events', () => {
  it('keep traders per mode: the same email is two traders, each 404 to the other mode', async () => {
    const a = await test.post<{ id: string; livemode: boolean }>('/v1/traders', '/v1/traders', { body: { name: 'Sam', email: 'sam@example.com' } });
    const b = await live.post<{ id: string; livemode: boolean }>('/v1/traders', '/v1/traders', { body: { name: 'Sam', email: 'sam@example.com' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect([a.body.livemode, b.body.livemode]).toEqual([false, true]);
    await notFound(live.get('/v1/traders/{id}', `/v1/traders/${a.body.id}`));
    await notFound(test.get('/v1/traders/{id}', `/v1/traders/${b.body.id}`));
    expect((await all<{ id: string }>(test, '/v1/traders', '/v1/traders')).map((t) => t.id)).not.toContain(b.body.id);
    expect((await all<{ id: string }>(live, '/v1/traders', '/v1/traders')).map((t) => t.id)).not.toContain(a.body.id);
    const filtered = await test.get<Page<Account>>('/v1/accounts', `/v1/accounts?trader_id=${b.body.id}`);
    expect(filtered.body.data).toEqual([]);
  });

  it('keep custom programs per mode; built-ins show in both with the caller’s livemode', async () => {
    const body = { name: 'sandbox-only', initial_balance: 10000, phases: [{ name: 'P1', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10 }] };
    const created = await test.post<{ livemode: boolean }>('/v1/programs', '/v1/programs', { body });
    expect(created.status).toBe(201);
    expect(created.body.livemode).toBe(false);
    await notFound(live.get('/v1/programs/{name}', '/v1/programs/sandbox-only'));
    const liveList = await live.get<Page<{ name: string; livemode: boolean }>>('/v1/programs', '/v1/programs');
    expect(liveList.body.data.map((p) => p.name)).not.toContain('sandbox-only');
    expect(liveList.body.data.every((p) => p.livemode)).toBe(true);
    const testList = await test.get<Page<{ name: string; livemode: boolean }>>('/v1/programs', '/v1/programs');
    expect(testList.body.data.map((p) => p.name)).toContain('sandbox-only');
    expect(testList.body.data.every((p) => p.livemode === false)).toBe(true);
    expect((await test.get<{ livemode: boolean }>('/v1/programs/{name}', '/v1/programs/standard')).body.livemode).toBe(false);
    const fromOtherMode = await live.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'sandbox-only' } });
    expect(fromOtherMode.status).toBe(400);
    expect(fromOtherMode.body.error.param).toBe('program');
    expect((await live.post('/v1/programs', '/v1/programs', { body })).status).toBe(201);
  });

  it('feed each mode its own events, marked with livemode', async () => {
    const testEvents = await all<{ livemode: boolean; data: { account?: number } }>(test, '/v1/events', '/v1/events?type=account.created', 50);
    expect(testEvents.map((e) => e.data.account)).toEqual(testNumbers);
    expect(testEvents.every((e) => e.livemode === false)).toBe(true);
    const liveEvents = await all<{ livemode: boolean; data: { account?: number } }>(live, '/v1/events', '/v1/events?type=account.created', 50);
    expect(liveEvents.map((e) => e.data.account)).toEqual(liveNumbers);
    expect(liveEvents.every((e) => e.livemode)).toBe(true);
  });
});

describe('free test mode', () => {
  it('provisions and resets without a plan or a credit, and never says credits.low', async () => {
    const org = await stack.createOrg({ paid: false, credits: 2 });
    await stack.admin.auth.call.setCreditsLowThreshold({ organizationId: org.id, threshold: '5' });
    const sandbox = client(stack.url, (await stack.createKey(org.id, undefined, 'sandbox', { mode: 'test' })).token);
    const created = await sandbox.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 5 } });
    expect(created.status).toBe(201);
    const number = created.body.data[0].number;
    const reset = await sandbox.post<Account & { attempt: number }>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body.attempt).toBe(2);
    const after = await stack.admin.auth.call.getOrganization({ organizationId: org.id });
    expect(after.organization?.credits).toBe('2');
    const events = await all<{ type: string }>(sandbox, '/v1/events', '/v1/events', 50);
    expect(events.map((e) => e.type)).not.toContain('credits.low');
    expect(events.map((e) => e.type)).toContain('account.reset');
  });

  it('leaves a paid organization’s credits as they were', async () => {
    const before = (await stack.admin.auth.call.getOrganization({ organizationId: orgId })).organization?.credits;
    await test.post('/v1/accounts', '/v1/accounts', { body: { count: 2 } });
    await test.post('/v1/accounts/{number}/reset', `/v1/accounts/${testNumbers[1]}/reset`);
    expect((await stack.admin.auth.call.getOrganization({ organizationId: orgId })).organization?.credits).toBe(before);
  });
});

describe('executor sessions', () => {
  it('trade a test account in test mode', async () => {
    const number = testNumbers[2];
    const credentials = await test.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
    const session = await client(stack.url).post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: number, password: credentials.body.password } });
    expect(session.status).toBe(201);
    const executor = client(stack.url, session.body.token);
    const account = await executor.get<Account>('/v1/executor/account');
    expect(account.body).toMatchObject({ number, livemode: false });
    const positions = await executor.get<Page<unknown>>('/v1/executor/positions');
    expect(positions.status).toBe(200);
  });
});

describe('the panel API', () => {
  it('shows the partition the X-PropDesk-Mode header names, live without it', async () => {
    const owner = await stack.createUser(orgId, { role: 'owner' });
    const cookie = await stack.panelLogin(owner.email, owner.password);
    const panel = (path: string, mode?: string) => request<Page<Account>>(stack.url, 'GET', path, { headers: { cookie, ...(mode ? { 'x-propdesk-mode': mode } : {}) } });
    const numbers = (res: { body: Page<Account> }) => res.body.data.map((a) => a.number);
    const testPage = await panel('/panel/api/accounts?limit=200', 'test');
    expect(testPage.status).toBe(200);
    expect(numbers(testPage)).toEqual(expect.arrayContaining(testNumbers));
    expect(numbers(testPage)).not.toContain(liveNumbers[0]);
    const livePage = await panel('/panel/api/accounts?limit=200');
    expect(numbers(livePage)).toEqual(liveNumbers);
    expect((await panel(`/panel/api/accounts?q=${testNumbers[0]}`)).body.data).toEqual([]);
    const one = await request<ErrorBody>(stack.url, 'GET', `/panel/api/accounts/${testNumbers[0]}`, { headers: { cookie } });
    expect(one.status).toBe(404);
    const bad = await panel('/panel/api/accounts', 'staging');
    expect(bad.status).toBe(400);
  });
});
