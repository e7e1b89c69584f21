/**
 * SPEC 14's operator controls over HTTP: halts (new orders refused through the API and the
 * executor, evaluation going on), program-wide halts, reinstatement of a breached account (the
 * engine judges it again), balance adjustments as balance deals (a debit can breach), and deals
 * that say their type. Every answer is checked against the OpenAPI document.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';

interface Account {
  number: number;
  status: string;
  balance: number;
  equity: number;
  trading_halted: boolean;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface Event {
  type: string;
  data: Record<string, unknown>;
}
interface Deal {
  id: string;
  type: string;
  position_id: string | null;
  symbol: string | null;
  side: string | null;
  volume: number | null;
  open_price: number | null;
  close_price: number | null;
  profit: number;
  balance_after: number;
}
interface Flag {
  rule: string;
  action: string;
  reinstated_at: string | null;
  reinstated_reason: string | null;
}

let stack: Stack;
let orgId: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 200 })).id;
  api = client(stack.url, (await stack.createKey(orgId, ['accounts:read', 'accounts:write', 'trading:write', 'credentials:read'])).token);
  await quote(1.1);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function quote(price: number): Promise<void> {
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price } });
}
async function newAccounts(count: number, program = 'standard'): Promise<number[]> {
  const res = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count, program } });
  expect(res.status).toBe(201);
  return res.body.data.map((a) => a.number);
}
const account = async (number: number) => (await api.get<Account>('/v1/accounts/{number}', `/v1/accounts/${number}`)).body;
const order = (number: number, volume = 1, side = 'buy') =>
  api.post<{ id: string } & ErrorBody>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'EURUSD', side, volume } });
const control = <T = Account>(number: number, action: 'halt' | 'resume' | 'reinstate', body?: unknown) =>
  api.post<T & ErrorBody>(`/v1/accounts/{number}/${action}`, `/v1/accounts/${number}/${action}`, body === undefined ? {} : { body });
const adjust = (number: number, body: unknown) => api.post<Record<string, unknown> & ErrorBody>('/v1/accounts/{number}/adjustments', `/v1/accounts/${number}/adjustments`, { body });
async function events(type: string, number?: number): Promise<Event[]> {
  const all = (await api.get<Page<Event>>('/v1/events', `/v1/events?type=${type}&limit=200`)).body.data;
  return number === undefined ? all : all.filter((e) => e.data.account === number);
}
const flags = async (number: number) => (await api.get<Page<Flag>>('/v1/accounts/{number}/flags', `/v1/accounts/${number}/flags`)).body.data;
const trades = async (number: number) => (await api.get<Page<Deal>>('/v1/accounts/{number}/trades', `/v1/accounts/${number}/trades`)).body.data;

describe('halts', () => {
  it('refuses new orders (rule halted) through the API and the executor, keeps open positions, and goes on evaluating', async () => {
    await quote(1.1);
    const [number] = await newAccounts(1);
    expect((await order(number, 10)).status).toBe(201);
    const halted = await control(number, 'halt', { reason: 'incident: price feed glitch' });
    expect(halted.status).toBe(200);
    expect(halted.body).toMatchObject({ number, status: 'active', trading_halted: true });
    expect((await account(number)).trading_halted).toBe(true);
    expect(await events('account.halted', number)).toEqual([expect.objectContaining({ data: { account: number, reason: 'incident: price feed glitch' } })]);

    const refused = await order(number);
    expect([refused.status, refused.body.error.code]).toEqual([422, 'order_rejected']);
    expect(refused.body.error.message).toContain('halted');
    expect(refused.body.error.param).toBeUndefined();
    expect(await events('order.rejected', number)).toEqual([expect.objectContaining({ data: expect.objectContaining({ rule: 'halted' }) })]);

    const creds = await api.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
    const session = await client(stack.url).post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: number, password: creds.body.password } });
    const executor = client(stack.url, session.body.token);
    const viaExecutor = await executor.post<ErrorBody>('/v1/executor/positions', '/v1/executor/positions', { body: { symbol: 'EURUSD', side: 'sell', volume: 1 } });
    expect([viaExecutor.status, viaExecutor.body.error.code]).toEqual([422, 'order_rejected']);
    expect(viaExecutor.body.error.message).toContain('halted');
    const open = await api.get<Page<{ status: string }>>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions?status=open`);
    expect(open.body.data).toHaveLength(1);

    const again = await control(number, 'halt', { reason: 'twice' });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
    const noReason = await control(number, 'halt', {});
    expect([noReason.status, noReason.body.error.param]).toEqual([400, 'reason']);

    // Evaluation goes on: 10 lots losing 101 pips is past the 5% daily loss.
    await quote(1.0899);
    expect(await account(number)).toMatchObject({ status: 'breached', trading_halted: true });
  });

  it('resume lifts the halt (account.resumed); resuming an account that is not halted is conflict', async () => {
    await quote(1.1);
    const [number] = await newAccounts(1);
    const notHalted = await control(number, 'resume');
    expect([notHalted.status, notHalted.body.error.code]).toEqual([409, 'conflict']);
    await control(number, 'halt', { reason: 'review' });
    const resumed = await control(number, 'resume');
    expect([resumed.status, resumed.body.trading_halted]).toEqual([200, false]);
    expect(await events('account.resumed', number)).toEqual([expect.objectContaining({ data: { account: number } })]);
    expect((await order(number)).status).toBe(201);
    const archived = (await newAccounts(1))[0];
    await api.post('/v1/accounts/{number}/archive', `/v1/accounts/${archived}/archive`);
    const haltArchived = await control(archived, 'halt', { reason: 'x' });
    expect([haltArchived.status, haltArchived.body.error.code]).toEqual([409, 'account_archived']);
  });

  it("halts and resumes every account of a program at once, counting the accounts it changed, in the organization's own mode only", async () => {
    const program = { name: 'halt-me', initial_balance: 10000, phases: [{ name: 'P1', kind: 'evaluation', profit_target_pct: 10, max_daily_loss_pct: 5, max_total_loss_pct: 10 }] };
    expect((await api.post('/v1/programs', '/v1/programs', { body: program })).status).toBe(201);
    const numbers = await newAccounts(12, 'halt-me');
    const [alreadyHalted, archived, breached] = numbers;
    await control(alreadyHalted, 'halt', { reason: 'earlier' });
    await api.post('/v1/accounts/{number}/archive', `/v1/accounts/${archived}/archive`);
    await api.post('/v1/accounts/{number}/breach', `/v1/accounts/${breached}/breach`, { body: { reason: 'manual' } });
    const others = await newAccounts(2);
    const otherOrg = await stack.createOrg();
    const otherApi = client(stack.url, (await stack.createKey(otherOrg.id)).token);
    expect((await otherApi.post('/v1/programs', '/v1/programs', { body: program })).status).toBe(201);
    const [foreign] = (await otherApi.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'halt-me' } })).body.data.map((a) => a.number);

    const halted = await api.post<{ program: string; accounts: number }>('/v1/programs/{name}/halt', '/v1/programs/halt-me/halt', { body: { reason: 'incident on the feed' } });
    expect(halted.status).toBe(200);
    expect(halted.body).toEqual({ program: 'halt-me', accounts: 10 });
    const haltedEvents = (await events('account.halted')).filter((e) => numbers.includes(e.data.account as number) && e.data.reason === 'incident on the feed');
    expect(haltedEvents.map((e) => e.data.account).sort()).toEqual(numbers.filter((n) => n !== alreadyHalted && n !== archived).sort());
    for (const n of numbers.slice(3)) expect((await account(n)).trading_halted).toBe(true);
    expect((await account(archived)).trading_halted).toBe(false);
    for (const n of others) expect((await account(n)).trading_halted).toBe(false);
    expect((await otherApi.get<Account>('/v1/accounts/{number}', `/v1/accounts/${foreign}`)).body.trading_halted).toBe(false);
    const refused = await order(numbers[5]);
    expect([refused.status, refused.body.error.code]).toEqual([422, 'order_rejected']);

    const again = await api.post<{ accounts: number }>('/v1/programs/{name}/halt', '/v1/programs/halt-me/halt', { body: { reason: 'again' } });
    expect(again.body.accounts).toBe(0);
    const resumed = await api.post<{ program: string; accounts: number }>('/v1/programs/{name}/resume', '/v1/programs/halt-me/resume');
    expect(resumed.body).toEqual({ program: 'halt-me', accounts: 11 });
    expect((await events('account.resumed')).filter((e) => numbers.includes(e.data.account as number))).toHaveLength(11);
    expect((await account(alreadyHalted)).trading_halted).toBe(false);

    const unknown = await api.post<ErrorBody>('/v1/programs/{name}/halt', '/v1/programs/no-such-program/halt', { body: { reason: 'x' } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const noReason = await api.post<ErrorBody>('/v1/programs/{name}/halt', '/v1/programs/halt-me/halt', { body: {} });
    expect([noReason.status, noReason.body.error.param]).toEqual([400, 'reason']);
    const testKey = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
    const inTest = await testKey.post<ErrorBody>('/v1/programs/{name}/halt', '/v1/programs/halt-me/halt', { body: { reason: 'x' } });
    expect([inTest.status, inTest.body.error.code]).toEqual([404, 'not_found']);
    const builtinInTest = await testKey.post<{ accounts: number }>('/v1/programs/{name}/halt', '/v1/programs/standard/halt', { body: { reason: 'x' } });
    expect(builtinInTest.body).toEqual({ program: 'standard', accounts: 0 });
  });
});

describe('a program-wide halt at scale', () => {
  it('halts 300 accounts of a program in one call, one event each, and resumes them', async () => {
    const org = await stack.createOrg({ credits: 400 });
    const own = client(stack.url, (await stack.createKey(org.id)).token);
    const numbers = await stack.createAccounts(org.id, 300);
    const started = Date.now();
    const halted = await own.post<{ program: string; accounts: number }>('/v1/programs/{name}/halt', '/v1/programs/standard/halt', { body: { reason: 'market closed early' } });
    const took = Date.now() - started;
    expect(halted.body).toEqual({ program: 'standard', accounts: 300 });
    // One statement whatever the number: well under the gateway's deadline even on a busy machine.
    expect(took).toBeLessThan(3000);
    const feed = await own.get<Page<Event>>('/v1/events', '/v1/events?type=account.halted&limit=200');
    const second = await own.get<Page<Event>>('/v1/events', `/v1/events?type=account.halted&limit=200&cursor=${feed.body.next_cursor}`);
    const accountsHalted = [...feed.body.data, ...second.body.data].map((e) => e.data.account as number);
    expect(accountsHalted.sort()).toEqual([...numbers].sort());
    expect((await own.get<Account>('/v1/accounts/{number}', `/v1/accounts/${numbers[299]}`)).body.trading_halted).toBe(true);
    const list = await own.get('/v1/accounts', '/v1/accounts?limit=1');
    expect(list.text).toContain('"trading_halted":true');
    expect((await own.post<{ accounts: number }>('/v1/programs/{name}/resume', '/v1/programs/standard/resume')).body.accounts).toBe(300);
  });
});

describe('reinstatement', () => {
  it('makes a breached account active in the same attempt, keeps the breach on record, and the engine judges it again', async () => {
    await quote(1.1);
    const [number] = await newAccounts(1);
    expect((await order(number, 2)).status).toBe(201);
    await quote(1.0995);
    const breached = await api.post<Account>('/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { body: { reason: 'suspected copy trading' } });
    expect(breached.body.status).toBe('breached');
    const balance = breached.body.balance;

    const noReason = await control(number, 'reinstate', {});
    expect([noReason.status, noReason.body.error.param]).toEqual([400, 'reason']);
    const reinstated = await control<Account & { attempt: number }>(number, 'reinstate', { reason: 'cleared after review' });
    expect(reinstated.status).toBe(200);
    expect(reinstated.body).toMatchObject({ status: 'active', attempt: 1, balance, equity: balance });
    const open = await api.get<Page<unknown>>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions?status=open`);
    expect(open.body.data).toHaveLength(0);
    const [breach] = (await flags(number)).filter((f) => f.action === 'breach');
    expect(breach).toMatchObject({ rule: 'manual', reinstated_reason: 'cleared after review' });
    expect(breach.reinstated_at).not.toBeNull();
    expect(await events('account.reinstated', number)).toEqual([expect.objectContaining({ data: expect.objectContaining({ account: number, reason: 'cleared after review' }) })]);
    const again = await control(number, 'reinstate', { reason: 'twice' });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);

    // Trading and evaluation again: a losing quote breaches it a second time, recorded as such.
    await quote(1.1);
    expect((await order(number, 10)).status).toBe(201);
    await quote(1.0945);
    expect((await account(number)).status).toBe('breached');
    const breaches = (await flags(number)).filter((f) => f.action === 'breach');
    expect(breaches).toHaveLength(2);
    expect(breaches[1]).toMatchObject({ rule: 'max_daily_loss', reinstated_at: null });
  });

  it('refuses any status but breached with conflict, changing nothing', async () => {
    const [active] = await newAccounts(1);
    const res = await control(active, 'reinstate', { reason: 'x' });
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(await events('account.reinstated', active)).toHaveLength(0);
  });
});

describe('balance adjustments', () => {
  it('books a balance deal, moves balance and equity, and says the type of every deal', async () => {
    await quote(1.1);
    const [number] = await newAccounts(1);
    const position = await order(number, 1);
    await quote(1.101);
    await api.post('/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/${position.body.id}/close`);
    const before = await account(number);
    const credit = await adjust(number, { amount: 250.5, reason: 'commission refund' });
    expect(credit.status).toBe(201);
    expect(credit.body).toMatchObject({ account: number, amount: 250.5, reason: 'commission refund', balance_after: before.balance + 250.5 });
    expect(await account(number)).toMatchObject({ balance: before.balance + 250.5, equity: before.balance + 250.5 });
    const deals = await trades(number);
    expect(deals.map((d) => d.type)).toEqual(['trade', 'balance']);
    expect(deals[0]).toMatchObject({ position_id: position.body.id, symbol: 'EURUSD', side: 'buy' });
    expect(deals[1]).toEqual(
      expect.objectContaining({ id: credit.body.id, type: 'balance', profit: 250.5, position_id: null, symbol: null, side: null, volume: null, open_price: null, close_price: null }),
    );
    expect(await events('account.adjusted', number)).toEqual([expect.objectContaining({ data: expect.objectContaining({ amount: 250.5, reason: 'commission refund' }) })]);
    const report = await api.get<{ deals_and_positions: { deals: Deal[] } }>('/v1/accounts/{number}/report', `/v1/accounts/${number}/report`);
    expect(report.status).toBe(200);
    expect(report.body.deals_and_positions.deals.map((d) => d.type)).toEqual(['balance', 'trade']);
    // A balance adjustment is no trade: the indicators count the one trade.
    const analytics = await api.get<{ trades: number }>('/v1/accounts/{number}/analytics', `/v1/accounts/${number}/analytics`);
    expect(analytics.body.trades).toBe(1);
  });

  it('refuses 0, fractions of a cent and a missing reason with 400 naming the field', async () => {
    const [number] = await newAccounts(1);
    for (const [body, param] of [
      [{ amount: 0, reason: 'x' }, 'amount'],
      [{ amount: 10.001, reason: 'x' }, 'amount'],
      [{ amount: '10', reason: 'x' }, 'amount'],
      [{ amount: 10 }, 'reason'],
      [{ amount: -100001, reason: 'below zero' }, 'amount'],
    ] as const) {
      const res = await adjust(number, body);
      expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([400, 'invalid_request', param]);
    }
    expect((await trades(number)).length).toBe(0);
    expect((await account(number)).balance).toBe(100000);
  });

  it('evaluates the account at once: a debit past the total loss limit breaches it', async () => {
    const [number] = await newAccounts(1);
    const debit = await adjust(number, { amount: -10000.01, reason: 'chargeback' });
    expect(debit.status).toBe(201);
    expect(await account(number)).toMatchObject({ status: 'breached', balance: 89999.99 });
    expect((await flags(number)).filter((f) => f.action === 'breach')).toHaveLength(1);
    expect(await events('account.breached', number)).toHaveLength(1);
    // A breached account may still be corrected (before a reinstatement), a passed or archived one not.
    expect((await adjust(number, { amount: 0.01, reason: 'correction' })).status).toBe(201);
    const [archived] = await newAccounts(1);
    await api.post('/v1/accounts/{number}/archive', `/v1/accounts/${archived}/archive`);
    const refused = await adjust(archived, { amount: 1, reason: 'x' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'account_archived']);
  });
});

describe('isolation', () => {
  it("another organization's or the other mode's account is not_found for every control", async () => {
    const [number] = await newAccounts(1);
    const other = client(stack.url, (await stack.createKey((await stack.createOrg()).id)).token);
    const testKey = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
    for (const outsider of [other, testKey]) {
      for (const [template, body] of [
        ['/v1/accounts/{number}/halt', { reason: 'x' }],
        ['/v1/accounts/{number}/resume', undefined],
        ['/v1/accounts/{number}/reinstate', { reason: 'x' }],
        ['/v1/accounts/{number}/adjustments', { amount: 1, reason: 'x' }],
      ] as const) {
        const res = await outsider.post<ErrorBody>(template, template.replace('{number}', String(number)), body === undefined ? {} : { body });
        expect([template, res.status, res.body.error.code]).toEqual([template, 404, 'not_found']);
      }
    }
    expect(await account(number)).toMatchObject({ trading_halted: false, balance: 100000 });
  });

  it('the controls need accounts:write', async () => {
    const [number] = await newAccounts(1);
    const reader = client(stack.url, (await stack.createKey(orgId, ['accounts:read'])).token);
    const res = await reader.post<ErrorBody>('/v1/accounts/{number}/halt', `/v1/accounts/${number}/halt`, { body: { reason: 'x' } });
    expect([res.status, res.body.error.code]).toEqual([403, 'missing_scope']);
    expect(res.body.error.message).toContain('accounts:write');
  });
});
