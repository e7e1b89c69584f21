import { randomUUID } from 'node:crypto';
import { Mode } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { at, clockHelpers, READY, TEST } from '../test/clock-helpers';
import { startHarness, type Harness } from '../test/harness';
import { expectCode } from '../test/trading-helpers';

/**
 * Test clocks through the real service (SPEC 13): what a clock is, who may use it, and that an
 * account on a clock lives at the clock's time and trades at the clock's prices only.
 */
let h: Harness;
let org: string;
const c = clockHelpers(
  () => h,
  () => org,
);
const T0 = at('2025-01-08T10:00:00.000Z');

beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(0);
  // The market's price when the clocks are created: where each clock's prices begin.
  await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
});
afterAll(() => h.close());

describe('a test clock', () => {
  it('is created, read and listed in test mode only; a live mode is forbidden, naming test mode', async () => {
    const clock = await c.createClock(T0, 'Q1 walk');
    expect(clock).toMatchObject({ id: expect.stringMatching(/^clock_[0-9a-f]{32}$/), name: 'Q1 walk', frozenTime: T0, status: READY, livemode: false });
    expect(await c.clock(clock.id)).toEqual(clock);
    const other = await c.createClock(T0);
    const first = await h.api.listTestClocks({ organizationId: org, mode: TEST, pageSize: 1, pageToken: '' });
    const second = await h.api.listTestClocks({ organizationId: org, mode: TEST, pageSize: 1, pageToken: first.nextPageToken });
    expect([...first.testClocks, ...second.testClocks].map((k) => k.id)).toEqual([clock.id, other.id]);

    const live = { organizationId: org, mode: Mode.MODE_LIVE };
    let refused: unknown;
    try {
      await h.api.createTestClock({ ...live, name: '' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ code: 'forbidden', message: expect.stringContaining('test mode') });
    await expectCode(h.api.getTestClock({ ...live, id: clock.id }), 'forbidden');
    await expectCode(h.api.listTestClocks({ ...live, pageSize: 0, pageToken: '' }), 'forbidden');
    await expectCode(h.api.advanceTestClock({ ...live, id: clock.id, frozenTime: at('2025-01-09T00:00:00Z') }), 'forbidden');
    await expectCode(h.api.deleteTestClock({ ...live, id: clock.id }), 'forbidden');
    await expectCode(h.trading.publishTestClockQuote({ ...live, testClockId: clock.id, quote: { symbol: 'EURUSD', bid: 1, ask: 1 } }), 'forbidden');
    await expectCode(h.api.createAccounts({ ...live, count: 1, program: '', initialBalance: 0, testClockId: clock.id }), 'forbidden');
  });

  it('of another organization, unknown or malformed is not_found', async () => {
    const clock = await c.createClock(T0);
    const stranger = { organizationId: randomUUID(), mode: TEST };
    await expectCode(h.api.getTestClock({ ...stranger, id: clock.id }), 'not_found');
    await expectCode(h.api.advanceTestClock({ ...stranger, id: clock.id, frozenTime: at('2025-01-09T00:00:00Z') }), 'not_found');
    await expectCode(h.api.deleteTestClock({ ...stranger, id: clock.id }), 'not_found');
    await expectCode(h.trading.publishTestClockQuote({ ...stranger, testClockId: clock.id, quote: { symbol: 'EURUSD', bid: 1, ask: 1 } }), 'not_found');
    await expectCode(h.api.getTestClock({ organizationId: org, mode: TEST, id: 'clock_nope' }), 'not_found');
    await expectCode(h.api.createAccounts({ ...stranger, count: 1, program: '', initialBalance: 0, testClockId: clock.id }), 'invalid_request', 'test_clock');
    await expectCode(h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: '', initialBalance: 0, testClockId: 'clock_nope' }), 'invalid_request', 'test_clock');
    const foreign = (await h.api.createAccounts({ ...stranger, count: 1, program: '', initialBalance: 0, testClockId: '' })).accounts[0].number;
    expect(await h.api.listTestClocks({ ...stranger, pageSize: 0, pageToken: '' })).toEqual({ testClocks: [], nextPageToken: '' });
    await expectCode(h.api.getAccount({ organizationId: org, mode: TEST, number: foreign }), 'not_found');
  });

  it('refuses times it cannot take, naming frozen_time', async () => {
    const now = Date.now();
    await expectCode(h.api.createTestClock({ organizationId: org, mode: TEST, name: '', frozenTime: new Date(now + 367 * 86_400_000) }), 'invalid_request', 'frozen_time');
    const clock = await c.createClock(T0);
    const advance = (frozenTime: Date | undefined) => h.api.advanceTestClock({ organizationId: org, mode: TEST, id: clock.id, frozenTime });
    await expectCode(advance(T0), 'invalid_request', 'frozen_time');
    await expectCode(advance(at('2025-01-01T00:00:00Z')), 'invalid_request', 'frozen_time');
    await expectCode(advance(new Date(T0.getTime() + 366 * 86_400_000 + 1)), 'invalid_request', 'frozen_time');
    await expectCode(advance(undefined), 'invalid_request', 'frozen_time');
    expect(await c.clock(clock.id)).toMatchObject({ status: READY, frozenTime: T0 });
  });
});

describe('an account on a test clock', () => {
  it('lives at the clock’s time: created_at, orders, fills, deals, equity points and events', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id);
    const account = await c.account(n);
    expect(account).toMatchObject({ testClockId: clock.id, createdAt: T0, livemode: false });

    const opened = await c.order(n, { volume: 1 });
    expect(await c.account(n)).toMatchObject({ equity: 99_990 });
    expect(opened).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_OPEN, openPrice: 1.1001, openedAt: T0 });
    const resting = await c.order(n, { type: tradingv1.OrderType.ORDER_TYPE_LIMIT, price: 1.09 });
    const closed = await c.close(n, opened.id);
    expect(closed).toMatchObject({ closePrice: 1.1, closedAt: T0 });
    expect(await c.close(n, resting.id)).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_CANCELLED, closedAt: T0 });

    const { deals } = await h.trading.listTrades({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(deals).toEqual([expect.objectContaining({ openedAt: T0, closedAt: T0, profit: -10 })]);
    const { points } = await h.trading.getEquityCurve({ organizationId: org, mode: TEST, number: n, maxPoints: 0 });
    expect(points.length).toBeGreaterThan(0);
    expect(points.every((p) => p.time?.getTime() === T0.getTime())).toBe(true);
    const events = await c.events(n);
    expect(events.map((e) => e.type)).toEqual(['account.created', 'position.opened', 'position.closed']);
    expect(events.every((e) => e.createdAt.getTime() === T0.getTime())).toBe(true);
    // The feed pages by position, whatever the times: the clock's events sit among today's in commit order.
    const page = await h.api.listEvents({ organizationId: org, mode: TEST, pageSize: 200, pageToken: '', type: '' });
    const mine = page.events.filter((e) => (e.data as { account?: number }).account === Number(n));
    expect(mine.map((e) => e.type)).toEqual(events.map((e) => e.type));
  });

  it('trades at the clock’s prices: the live feed never moves it, the clock’s quote evaluates it at once', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id);
    const [plain] = (await h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: '', initialBalance: 0 })).accounts.map((a) => a.number);
    await c.order(n, { volume: 10 });
    await c.order(plain, { volume: 10 });
    // A live quote that would breach both: only the account on the market's prices breaches.
    await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.09, ask: 1.0901 } });
    expect(await c.account(plain)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED });
    expect(await c.account(n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, equity: 99_900 });
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '', status: 0 });
    expect(positions[0]).toMatchObject({ currentPrice: 1.1 });

    // The clock's own price: 10 lots bought at 1.1001, marked at 1.0945: -5,600, below the 95,000 daily limit.
    expect(await c.clockQuote(clock.id, 'EURUSD', 1.0945, 1.0946)).toEqual({ symbol: 'EURUSD', bid: 1.0945, ask: 1.0946, time: T0 });
    expect(await c.account(n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, balance: 94_400 });
    const breached = await c.events(n, 'account.breached');
    expect(breached).toEqual([expect.objectContaining({ createdAt: T0, data: expect.objectContaining({ equity: 94_400, status: 'breached' }) })]);
    // The market's price never moved the clock's: it is still where the clock began.
    const { positions: again } = await h.trading.listPositions({ organizationId: org, mode: TEST, number: plain, pageSize: 0, pageToken: '', status: 0 });
    expect(again[0]).toMatchObject({ closePrice: 1.09 });
  });

  it('fills resting orders and takes profits at the clock’s quotes', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id);
    // The clock began at the market's price of its creation (the live quote of the test before); its own quote sets it.
    await c.clockQuote(clock.id, 'EURUSD', 1.1, 1.1001);
    const limit = await c.order(n, { type: tradingv1.OrderType.ORDER_TYPE_LIMIT, price: 1.095, takeProfit: 1.097 });
    expect(limit.status).toBe(tradingv1.PositionStatus.POSITION_STATUS_PENDING);
    await c.clockQuote(clock.id, 'EURUSD', 1.0949, 1.095);
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '', status: 0 });
    expect(positions[0]).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_OPEN, openPrice: 1.095, openedAt: T0 });
    await c.clockQuote(clock.id, 'EURUSD', 1.0971, 1.0972);
    const { positions: after } = await h.trading.listPositions({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '', status: 0 });
    expect(after[0]).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_CLOSED, closePrice: 1.097, closedAt: T0 });
    expect((await c.events(n)).map((e) => [e.type, e.createdAt.toISOString()])).toEqual([
      ['account.created', T0.toISOString()],
      ['position.opened', T0.toISOString()],
      ['position.closed', T0.toISOString()],
    ]);
  });

  it('is never indexed by the live engine', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id);
    await c.order(n, { volume: 2 });
    await h.service.engine.caughtUp();
    expect(h.service.engine.startOfDayBalance(Number(n))).toBeNull();
    const indexed = (await h.service.engine.metrics.registry.getSingleMetric('propdesk_trading_live_positions')?.get())?.values[0]?.value;
    const live = await c.count(
      `SELECT count(*) AS n FROM positions p JOIN accounts a ON a.number = p.account_number WHERE p.status IN ('open', 'pending') AND a.test_clock_id IS NULL`,
      {},
    );
    // Every live-market position is in the live engine's index, and nothing else: not the clock account's.
    expect(indexed).toBe(live);
  });
});
