/**
 * SPEC 15 over HTTP, through the whole stack: the rule pack's program fields (validated with
 * their path as param, answered off for a program without them), the pre-order rules refusing with
 * 422 order_rejected naming the rule (API key and executor session), the news calendar (CRUD,
 * isolation by organization and mode, the blackout's edges), and the order preview (its figures,
 * and that it changes, emits and counts nothing). Every answer is checked against the OpenAPI
 * document.
 */
import { client, type ErrorBody } from '../support/http';
import { startStack, type Stack } from '../support/stack';

interface Position {
  id: string;
  status: string;
}
interface NewsEvent {
  id: string;
  title: string;
  time: string;
  currencies: string[];
  created_at: string;
}
interface Preview {
  allowed: boolean;
  rejections: Array<{ rule: string; message: string }>;
  margin_required: number;
  free_margin_after: number;
  worst_case: null | { loss_at_stop: number; daily_headroom_after: number; total_headroom_after: number; would_breach: boolean };
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

let stack: Stack;
let api: ReturnType<typeof client>;
let testApi: ReturnType<typeof client>;
let stranger: ReturnType<typeof client>;

const phase = (over: Record<string, unknown> = {}) => ({ name: 'Evaluation', kind: 'evaluation', profit_target_pct: 10, max_daily_loss_pct: 5, max_total_loss_pct: 10, ...over });

beforeAll(async () => {
  stack = await startStack();
  const org = (await stack.createOrg({ credits: 100 })).id;
  api = client(stack.url, (await stack.createKey(org)).token);
  testApi = client(stack.url, (await stack.createKey(org, undefined, 'sandbox', { mode: 'test' })).token);
  stranger = client(stack.url, (await stack.createKey((await stack.createOrg({ credits: 10 })).id)).token);
  for (const [symbol, bid, ask] of [
    ['EURUSD', 1.1, 1.1001],
    ['GBPUSD', 1.27, 1.2701],
    ['XAUUSD', 2000, 2000.5],
  ] as const) {
    await stack.admin.trading.call.publishQuote({ quote: { symbol, bid, ask } });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const expectError = (res: { status: number; body: unknown }, status: number, code: string, param?: string) => {
  const error = (res.body as ErrorBody).error;
  expect({ status: res.status, code: error?.code, param: error?.param }).toEqual({ status, code, param });
};

let programs = 0;
async function accountWith(rules: Record<string, unknown>): Promise<number> {
  const name = `rules-${++programs}`;
  const created = await api.post('/v1/programs', '/v1/programs', { body: { name, initial_balance: 100000, phases: [phase(rules)] } });
  expect(created.status).toBe(201);
  const accounts = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: name } });
  return accounts.body.data[0].number;
}

const order = (number: number, body: Record<string, unknown> = {}) =>
  api.post<Position>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume: 1, ...body } });

async function refusedRule(number: number, body: Record<string, unknown> = {}): Promise<string> {
  const res = await order(number, body);
  expectError(res, 422, 'order_rejected');
  return (res.body as unknown as ErrorBody).error.message;
}

describe("the rule pack's program fields", () => {
  it('answers every field, off for a program without them and for the built-ins', async () => {
    const off = { max_open_positions: null, max_trades_per_day: null, stop_loss_required: false, max_risk_per_trade_pct: null, news_blackout_minutes: null, max_phase_days: null, inactivity_days: null, trading_hours: null, close_at_session_end: false, daily_loss_action: 'breach', daily_profit_cap_pct: null, trading_day: null };
    const plain = await api.post<{ phases: unknown[] }>('/v1/programs', '/v1/programs', { body: { name: 'plain-rules', initial_balance: 100000, phases: [phase()] } });
    expect(plain.body.phases[0]).toMatchObject(off);
    const standard = await api.get<{ phases: unknown[] }>('/v1/programs/{name}', '/v1/programs/standard');
    expect(standard.body.phases[0]).toMatchObject(off);
    const full = {
      max_open_positions: 3,
      max_trades_per_day: 5,
      stop_loss_required: true,
      max_risk_per_trade_pct: 1.5,
      news_blackout_minutes: 15,
      max_phase_days: 30,
      inactivity_days: 7,
      trading_hours: { start: '09:30', end: '16:00', timezone: 'America/New_York' },
      close_at_session_end: true,
      daily_loss_action: 'lock',
      daily_profit_cap_pct: 3,
      trading_day: { timezone: 'Europe/London', start: '22:00' },
    };
    const all = await api.post<{ phases: unknown[] }>('/v1/programs', '/v1/programs', { body: { name: 'all-rules', initial_balance: 100000, phases: [phase(full)] } });
    expect(all.status).toBe(201);
    expect(all.body.phases[0]).toMatchObject(full);
    // Frozen into the account like the rest: the report's terms show them.
    const accounts = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'all-rules' } });
    const report = await api.get<{ terms: Record<string, unknown> }>('/v1/accounts/{number}/report', `/v1/accounts/${accounts.body.data[0].number}/report`);
    expect(report.body.terms).toMatchObject(full);
  });

  it('refuses a bad field with its path as param', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ max_open_positions: 0 }, 'phases[0].max_open_positions'],
      [{ max_trades_per_day: 1.5 }, 'phases[0].max_trades_per_day'],
      [{ max_risk_per_trade_pct: 0.001 }, 'phases[0].max_risk_per_trade_pct'],
      [{ max_risk_per_trade_pct: 100.01 }, 'phases[0].max_risk_per_trade_pct'],
      [{ news_blackout_minutes: 241 }, 'phases[0].news_blackout_minutes'],
      [{ max_phase_days: 0 }, 'phases[0].max_phase_days'],
      [{ inactivity_days: -1 }, 'phases[0].inactivity_days'],
      [{ trading_hours: { start: '9:30', end: '16:00', timezone: 'UTC' } }, 'phases[0].trading_hours.start'],
      [{ trading_hours: { start: '16:00', end: '09:30', timezone: 'UTC' } }, 'phases[0].trading_hours.end'],
      [{ trading_hours: { start: '09:30', end: '16:00', timezone: 'Mars/Olympus' } }, 'phases[0].trading_hours.timezone'],
      [{ close_at_session_end: true }, 'phases[0].close_at_session_end'],
      [{ daily_loss_action: 'warn' }, 'phases[0].daily_loss_action'],
      [{ daily_profit_cap_pct: 0 }, 'phases[0].daily_profit_cap_pct'],
      [{ trading_day: { timezone: 'Nowhere/City', start: '17:00' } }, 'phases[0].trading_day.timezone'],
      [{ trading_day: { timezone: 'UTC', start: '24:00' } }, 'phases[0].trading_day.start'],
    ];
    for (const [rules, param] of cases) {
      const res = await api.post('/v1/programs', '/v1/programs', { body: { name: 'bad-rules', initial_balance: 100000, phases: [phase(rules)] } });
      expectError(res, 400, 'invalid_request', param);
    }
  });
});

describe('pre-order rules', () => {
  it('refuse with 422 order_rejected naming the rule, in the message and in order.rejected', async () => {
    const n = await accountWith({ max_open_positions: 1, stop_loss_required: true });
    expect((await order(n, { stop_loss: 1.09 })).status).toBe(201);
    expect(await refusedRule(n, { stop_loss: 1.09 })).toMatch(/^max_open_positions \(1\)/);
    const rejected = await api.get<Page<{ data: { account: number; rule: string } }>>('/v1/events', '/v1/events?type=order.rejected');
    expect(rejected.body.data.filter((e) => e.data.account === n).map((e) => e.data.rule)).toEqual(['max_open_positions']);
  });

  it('refuse the executor session the same way', async () => {
    const n = await accountWith({ stop_loss_required: true });
    const creds = await api.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${n}/credentials`);
    const session = await client(stack.url).post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: n, password: creds.body.password } });
    const trader = client(stack.url, session.body.token);
    const refused = await trader.post('/v1/executor/positions', '/v1/executor/positions', { body: { symbol: 'EURUSD', side: 'sell', volume: 0.1 } });
    expectError(refused, 422, 'order_rejected');
    expect((refused.body as ErrorBody).error.message).toMatch(/^stop_loss_required/);
    const preview = await trader.post<Preview>('/v1/executor/orders/preview', '/v1/executor/orders/preview', { body: { symbol: 'EURUSD', side: 'sell', volume: 0.1 } });
    expect(preview.body).toMatchObject({ allowed: false, rejections: [{ rule: 'stop_loss_required' }], worst_case: null });
    expect((await trader.post('/v1/executor/positions', '/v1/executor/positions', { body: { symbol: 'EURUSD', side: 'sell', volume: 0.1, stop_loss: 1.11 } })).status).toBe(201);
  });

  it('max_risk_per_trade at its edge: a loss at the stop of exactly the allowance passes, a point more does not', async () => {
    const n = await accountWith({ max_risk_per_trade_pct: 0.5 });
    // Buy 1 lot at 1.1001: a stop at 1.0951 loses 500.00 (0.5% of 100,000); at 1.0950, 510.00.
    expect((await order(n, { stop_loss: 1.0951 })).status).toBe(201);
    expect(await refusedRule(n, { stop_loss: 1.095 })).toMatch(/^max_risk_per_trade \(0\.5%\)/);
  });

  it('a program without the rule pack behaves as before', async () => {
    const accounts = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
    const number = accounts.body.data[0].number;
    for (let i = 0; i < 4; i++) expect((await order(number)).status).toBe(201);
    expect(await refusedRule(number, { volume: 51 })).toMatch(/^max_lots_per_order/);
  });
});

describe('the news calendar', () => {
  it('creates, lists in time order with from and to, pages and deletes; isolated by organization and mode', async () => {
    const times = ['2026-06-05T12:30:00.000Z', '2026-06-03T08:00:00.000Z', '2026-06-04T14:00:00.000Z'];
    const created: NewsEvent[] = [];
    for (const [i, time] of times.entries()) {
      const res = await api.post<NewsEvent>('/v1/news_events', '/v1/news_events', { body: { title: `News ${i}`, time, currencies: ['USD', 'EUR'] } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^news_[0-9a-f]{32}$/), title: `News ${i}`, time, currencies: ['USD', 'EUR'], created_at: expect.any(String) });
      created.push(res.body);
    }
    const all = await api.get<Page<NewsEvent>>('/v1/news_events', '/v1/news_events?from=2026-06-01T00:00:00Z&to=2026-06-30T00:00:00Z');
    expect(all.body.data.map((e) => e.title)).toEqual(['News 1', 'News 2', 'News 0']);
    const first = await api.get<Page<NewsEvent>>('/v1/news_events', '/v1/news_events?from=2026-06-01T00:00:00Z&to=2026-06-30T00:00:00Z&limit=2');
    const rest = await api.get<Page<NewsEvent>>('/v1/news_events', `/v1/news_events?from=2026-06-01T00:00:00Z&to=2026-06-30T00:00:00Z&limit=2&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...rest.body.data].map((e) => e.title)).toEqual(['News 1', 'News 2', 'News 0']);
    expect(rest.body.next_cursor).toBeNull();
    const bounded = await api.get<Page<NewsEvent>>('/v1/news_events', '/v1/news_events?from=2026-06-04T14:00:00Z&to=2026-06-05T12:30:00Z');
    expect(bounded.body.data.map((e) => e.title)).toEqual(['News 2', 'News 0']);
    // Another organization and the test mode see none of them and cannot delete them.
    expect((await stranger.get<Page<NewsEvent>>('/v1/news_events', '/v1/news_events')).body.data).toEqual([]);
    expect((await testApi.get<Page<NewsEvent>>('/v1/news_events', '/v1/news_events')).body.data).toEqual([]);
    expectError(await stranger.delete('/v1/news_events/{id}', `/v1/news_events/${created[0].id}`), 404, 'not_found');
    expectError(await testApi.delete('/v1/news_events/{id}', `/v1/news_events/${created[0].id}`), 404, 'not_found');
    const deleted = await api.delete('/v1/news_events/{id}', `/v1/news_events/${created[0].id}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: created[0].id, deleted: true } });
    expectError(await api.delete('/v1/news_events/{id}', `/v1/news_events/${created[0].id}`), 404, 'not_found');
    expectError(await api.get('/v1/news_events', '/v1/news_events?from=yesterday'), 400, 'invalid_request', 'from');
  });

  it('refuses a malformed event naming the field', async () => {
    const post = (body: Record<string, unknown>) => api.post('/v1/news_events', '/v1/news_events', { body });
    expectError(await post({ title: 'x', time: '2026-06-01T00:00:00Z', currencies: ['usd'] }), 400, 'invalid_request', 'currencies');
    expectError(await post({ title: 'x', time: '2026-06-01T00:00:00Z', currencies: [] }), 400, 'invalid_request', 'currencies');
    expectError(await post({ title: 'x', time: 'soon', currencies: ['USD'] }), 400, 'invalid_request', 'time');
    expectError(await post({ time: '2026-06-01T00:00:00Z', currencies: ['USD'] }), 400, 'invalid_request', 'title');
  });

  it("blacks out a symbol either of whose currencies an event of the key's mode lists, from the minutes before to the minutes after", async () => {
    const n = await accountWith({ news_blackout_minutes: 10 });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    // Well outside the window (a test's minutes pass while it runs): no blackout.
    await api.post('/v1/news_events', '/v1/news_events', { body: { title: 'Later', time: at(12), currencies: ['EUR'] } });
    await api.post('/v1/news_events', '/v1/news_events', { body: { title: 'Earlier', time: at(-12), currencies: ['EUR'] } });
    await testApi.post('/v1/news_events', '/v1/news_events', { body: { title: 'Test mode', time: at(0), currencies: ['EUR', 'USD'] } });
    expect((await order(n)).status).toBe(201);
    // Inside it: EURUSD by EUR; XAUUSD only by USD.
    await api.post('/v1/news_events', '/v1/news_events', { body: { title: 'ECB', time: at(9), currencies: ['EUR'] } });
    expect(await refusedRule(n)).toMatch(/^news_blackout \(10 minutes\): EURUSD is blacked out around "ECB"/);
    expect((await order(n, { symbol: 'XAUUSD', volume: 0.01 })).status).toBe(201);
    expect((await order(n, { symbol: 'GBPUSD' })).status).toBe(201);
    await api.post('/v1/news_events', '/v1/news_events', { body: { title: 'FOMC', time: at(-9), currencies: ['USD'] } });
    expect(await refusedRule(n, { symbol: 'XAUUSD', volume: 0.01 })).toMatch(/"FOMC"/);
  });
});

describe('the order preview', () => {
  it("answers the rules' verdicts, the margin and the worst case; changes, emits and counts nothing", async () => {
    const n = await accountWith({ max_trades_per_day: 1, max_open_positions: 5 });
    const preview = (body: Record<string, unknown>) =>
      api.post<Preview>('/v1/accounts/{number}/orders/preview', `/v1/accounts/${n}/orders/preview`, { body: { symbol: 'EURUSD', side: 'buy', volume: 1, ...body } });
    const feedBefore = await api.get<Page<{ id: string }>>('/v1/events', `/v1/events?account=${n}&limit=200`);
    for (let i = 0; i < 3; i++) {
      const res = await preview({ stop_loss: 1.0951 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        allowed: true,
        rejections: [],
        margin_required: 1100.1,
        free_margin_after: 98899.9,
        worst_case: { loss_at_stop: 500, daily_headroom_after: 4500, total_headroom_after: 9500, would_breach: false },
      });
    }
    // A stop past the daily loss: allowed, but it would breach.
    expect((await preview({ volume: 10, stop_loss: 1.0951 })).body.worst_case).toEqual({ loss_at_stop: 5000, daily_headroom_after: 0, total_headroom_after: 5000, would_breach: false });
    expect((await preview({ volume: 10, stop_loss: 1.095 })).body).toMatchObject({ allowed: true, worst_case: { loss_at_stop: 5100, daily_headroom_after: -100, would_breach: true } });
    // A pending order is measured from its price.
    expect((await preview({ type: 'limit', price: 1.09, stop_loss: 1.085 })).body.worst_case?.loss_at_stop).toBe(500);
    const refused = await preview({ volume: 100 });
    expect(refused.body).toMatchObject({ allowed: false, worst_case: null });
    expect(refused.body.rejections.map((r) => r.rule)).toEqual(['max_lots_per_order', 'insufficient_margin']);
    expect(refused.body.rejections[0].message).toMatch(/^max_lots_per_order/);
    expectError(await preview({ stop_loss: 1.2 }), 400, 'invalid_request', 'stop_loss');
    expectError(await stranger.post('/v1/accounts/{number}/orders/preview', `/v1/accounts/${n}/orders/preview`, { body: { symbol: 'EURUSD', side: 'buy', volume: 1 } }), 404, 'not_found');
    // Nothing happened: no event, no position, and the one trade of the day is still there.
    const feedAfter = await api.get<Page<{ id: string }>>('/v1/events', `/v1/events?account=${n}&limit=200`);
    expect(feedAfter.body.data.map((e) => e.id)).toEqual(feedBefore.body.data.map((e) => e.id));
    expect((await api.get<Page<Position>>('/v1/accounts/{number}/positions', `/v1/accounts/${n}/positions`)).body.data).toEqual([]);
    expect((await order(n)).status).toBe(201);
    expect((await preview({})).body.rejections.map((r) => r.rule)).toEqual(['max_trades_per_day']);
  });
});
