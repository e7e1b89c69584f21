/**
 * SPEC 15's engine and time rules over HTTP, on test clocks: the daily lock and the profit cap
 * (account.locked with the next trading day's start, the positions closed, orders refused naming
 * the rule until then, no breach), time limits, inactivity and session ends exactly at their
 * moment when the clock is advanced past it, and a phase's trading day in a firm's time zone
 * across a daylight saving change. Every answer is checked against the OpenAPI document.
 */
import { waitUntil } from '@propdesk/kit/testing';
import { client, type ErrorBody } from '../support/http';
import { startStack, type Stack } from '../support/stack';

interface Account {
  number: number;
  status: string;
  balance: number;
}
interface Event {
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}
interface Position {
  id: string;
  status: string;
}

let stack: Stack;
let test: ReturnType<typeof client>;

const phase = (over: Record<string, unknown> = {}) => ({ name: 'Evaluation', kind: 'evaluation', profit_target_pct: 20, max_daily_loss_pct: 5, max_total_loss_pct: 10, ...over });
const NEW_YORK_DAY = { timezone: 'America/New_York', start: '17:00' };

beforeAll(async () => {
  stack = await startStack();
  const org = (await stack.createOrg({ credits: 0 })).id;
  test = client(stack.url, (await stack.createKey(org, undefined, 'sandbox', { mode: 'test' })).token);
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1 } });
  const programs: Array<[string, Record<string, unknown>]> = [
    ['lock-day', { daily_loss_action: 'lock', trading_day: NEW_YORK_DAY }],
    ['cap-day', { daily_profit_cap_pct: 2, trading_day: NEW_YORK_DAY }],
    ['ten-days', { max_phase_days: 10 }],
    ['idle-week', { inactivity_days: 7 }],
    ['london-session', { trading_hours: { start: '08:00', end: '16:30', timezone: 'Europe/London' }, close_at_session_end: true }],
  ];
  for (const [name, rules] of programs) {
    const res = await test.post('/v1/programs', '/v1/programs', { body: { name, initial_balance: 100000, phases: [phase(rules)] } });
    expect(res.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function clockWithAccount(frozenTime: string, program: string): Promise<{ clock: string; number: number }> {
  const clock = await test.post<{ id: string }>('/v1/test_clocks', '/v1/test_clocks', { body: { frozen_time: frozenTime } });
  const accounts = await test.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program, test_clock: clock.body.id } });
  return { clock: clock.body.id, number: accounts.body.data[0].number };
}

async function advance(clock: string, frozenTime: string): Promise<void> {
  expect((await test.post('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock}/advance`, { body: { frozen_time: frozenTime } })).status).toBe(200);
  await waitUntil(async () => (await test.get<{ status: string }>('/v1/test_clocks/{id}', `/v1/test_clocks/${clock}`)).body.status === 'ready', {
    what: `clock ${clock} ready`,
    timeoutMs: 60_000,
  });
}

const quote = (clock: string, bid: number) => test.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock}/quotes`, { body: { symbol: 'EURUSD', bid, ask: bid } });
const order = (number: number, volume = 1) => test.post<Position>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume } });
const account = async (number: number) => (await test.get<Account>('/v1/accounts/{number}', `/v1/accounts/${number}`)).body;

async function events(number: number, type: string): Promise<Event[]> {
  return (await test.get<{ data: Event[] }>('/v1/events', `/v1/events?account=${number}&limit=200`)).body.data.filter((e) => e.type === type);
}

async function refusal(number: number): Promise<string | null> {
  const res = await order(number);
  if (res.status === 201) return null;
  expect(res.status).toBe(422);
  return (res.body as unknown as ErrorBody).error.message;
}

describe('the daily lock and the profit cap', () => {
  it('a daily loss locks the account until the next trading day (17:00 New York), closing its positions; orders are taken again then', async () => {
    // Tuesday 2026-01-13 10:00 EST; the next day starts at 17:00 EST, 22:00 UTC.
    const { clock, number } = await clockWithAccount('2026-01-13T15:00:00.000Z', 'lock-day');
    expect((await order(number, 10)).status).toBe(201);
    await quote(clock, 1.0949);
    expect(await events(number, 'account.locked')).toEqual([
      expect.objectContaining({ created_at: '2026-01-13T15:00:00.000Z', data: { account: number, rule: 'daily_lock', until: '2026-01-13T22:00:00.000Z' } }),
    ]);
    expect(await account(number)).toMatchObject({ status: 'active', balance: 94_900 });
    expect((await events(number, 'position.closed')).map((e) => e.data.reason)).toEqual(['daily_lock']);
    expect(await refusal(number)).toMatch(/^daily_lock/);
    await advance(clock, '2026-01-13T21:59:00.000Z');
    expect(await refusal(number)).toMatch(/^daily_lock/);
    await advance(clock, '2026-01-13T22:00:00.000Z');
    expect(await refusal(number)).toBeNull();
    expect(await events(number, 'account.breached')).toEqual([]);
  });

  it("the day's profit cap locks the account for the day once reached", async () => {
    const { clock, number } = await clockWithAccount('2026-01-13T15:00:00.000Z', 'cap-day');
    expect((await order(number, 10)).status).toBe(201);
    await quote(clock, 1.10199);
    expect(await events(number, 'account.locked')).toEqual([]);
    await quote(clock, 1.102);
    expect((await events(number, 'account.locked')).map((e) => e.data)).toEqual([{ account: number, rule: 'daily_profit_cap', until: '2026-01-13T22:00:00.000Z' }]);
    expect(await refusal(number)).toMatch(/^daily_profit_cap/);
    const flags = await test.get<{ data: Array<{ rule: string; evidence: Record<string, unknown> }> }>('/v1/accounts/{number}/flags', `/v1/accounts/${number}/flags`);
    expect(flags.body.data).toEqual([expect.objectContaining({ rule: 'daily_profit_cap', evidence: expect.objectContaining({ rule: 'daily_profit_cap', limit: 102_000 }) })]);
    await advance(clock, '2026-01-14T15:00:00.000Z');
    expect(await refusal(number)).toBeNull();
  });
});

describe('time rules at their moments', () => {
  it('max_phase_days breaches at the phase start plus the days, stamped with that moment', async () => {
    const { clock, number } = await clockWithAccount('2026-02-01T09:00:00.000Z', 'ten-days');
    await advance(clock, '2026-02-11T08:59:59.000Z');
    expect(await account(number)).toMatchObject({ status: 'active' });
    await advance(clock, '2026-02-20T00:00:00.000Z');
    expect((await events(number, 'account.breached')).map((e) => [e.created_at, e.data.rule])).toEqual([['2026-02-11T09:00:00.000Z', 'time_limit']]);
  });

  it('inactivity_days breaches a week after the last position opened', async () => {
    const { clock, number } = await clockWithAccount('2026-02-01T09:00:00.000Z', 'idle-week');
    await advance(clock, '2026-02-05T12:00:00.000Z');
    expect((await order(number)).status).toBe(201);
    await advance(clock, '2026-02-12T11:00:00.000Z');
    expect(await account(number)).toMatchObject({ status: 'active' });
    await advance(clock, '2026-02-14T00:00:00.000Z');
    expect((await events(number, 'account.breached')).map((e) => [e.created_at, e.data.rule])).toEqual([['2026-02-12T12:00:00.000Z', 'inactivity']]);
  });

  it("a session's end closes the positions at 16:30 London, on either side of the March change", async () => {
    // Friday 2026-03-27 (GMT): the session ends at 16:30 UTC; on Monday 2026-03-30 (BST) at 15:30 UTC.
    const { clock, number } = await clockWithAccount('2026-03-27T10:00:00.000Z', 'london-session');
    expect((await order(number)).status).toBe(201);
    await advance(clock, '2026-03-28T00:00:00.000Z');
    await advance(clock, '2026-03-30T10:00:00.000Z');
    expect((await order(number)).status).toBe(201);
    await advance(clock, '2026-03-30T18:00:00.000Z');
    expect((await events(number, 'position.closed')).map((e) => [e.created_at, e.data.reason])).toEqual([
      ['2026-03-27T16:30:00.000Z', 'session_end'],
      ['2026-03-30T15:30:00.000Z', 'session_end'],
    ]);
    expect(await refusal(number)).toMatch(/^trading_hours/);
  });
});
