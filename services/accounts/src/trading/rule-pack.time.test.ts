import { Mode, QueryTypes } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { at, clockHelpers, TEST } from '../test/clock-helpers';
import { startHarness, type Harness } from '../test/harness';
import { phase } from '../test/lifecycle-helpers';

/**
 * SPEC 15's time rules: a phase's time limit and inactivity breach, a session's end closes the
 * positions and cancels the resting orders, exactly at their moment when a test clock is advanced
 * past it (each event stamped with it), and within seconds of it on live time (the scheduler);
 * a phase's trading day rolls over at its zone's wall time, daylight saving included.
 */
let h: Harness;
let org: string;
let liveOrg: string;
const c = clockHelpers(
  () => h,
  () => org,
);
const ACTIVE = accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE;
const BREACHED = accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = at('2026-02-02T12:00:00.000Z');
const plus = (t: Date, ms: number) => new Date(t.getTime() + ms);

beforeAll(async () => {
  h = await startHarness({ RULE_DEADLINES_INTERVAL_MS: '100' });
  org = h.newOrg(0);
  await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
  const program = (name: string, rules: Record<string, unknown>, mode = TEST, organizationId = org) =>
    h.api.createProgram({ organizationId, mode, program: { name, initial_balance: 100000, phases: [phase('Evaluation', { profit_target_pct: 20, ...rules })] } });
  await program('three-days', { max_phase_days: 3 });
  await program('idle-two-days', { inactivity_days: 2 });
  await program('ny-session', { trading_hours: { start: '09:30', end: '16:00', timezone: 'America/New_York' }, close_at_session_end: true });
  await program('ny-day', { trading_day: { timezone: 'America/New_York', start: '17:00' }, min_trading_days: 10 });
  liveOrg = h.newOrg(10);
  await program('live-idle', { inactivity_days: 1 }, Mode.MODE_LIVE, liveOrg);
});
afterAll(() => h.close());

async function breaches(number: string) {
  return (await c.events(number, 'account.breached')).map((e) => ({ rule: e.data.rule, at: e.createdAt }));
}

describe('time rules on a test clock', () => {
  it('max_phase_days breaches exactly when the phase runs out of time (rule time_limit)', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id, 'three-days');
    await c.advance(clock.id, plus(T0, 3 * DAY - 1000));
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
    await c.advance(clock.id, plus(T0, 4 * DAY));
    expect(await c.account(n)).toMatchObject({ status: BREACHED });
    expect(await breaches(n)).toEqual([{ rule: 'time_limit', at: plus(T0, 3 * DAY) }]);
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(flags).toEqual([expect.objectContaining({ rule: 'time_limit', action: 'breach', evidence: expect.objectContaining({ rule: 'time_limit', program: 'three-days' }) })]);
  });

  it('inactivity_days counts from the last position opened: a position opened moves the moment', async () => {
    const clock = await c.createClock(T0);
    const [n] = await c.accounts(1, clock.id, 'idle-two-days');
    await c.advance(clock.id, plus(T0, DAY));
    const p = await c.order(n);
    await c.close(n, p.id);
    // Two days from the start have passed, not two from the order.
    await c.advance(clock.id, plus(T0, 2 * DAY + HOUR));
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
    await c.advance(clock.id, plus(T0, 5 * DAY));
    expect(await breaches(n)).toEqual([{ rule: 'inactivity', at: plus(T0, 3 * DAY) }]);
  });

  it("a session's end closes the positions (close reason session_end) and cancels the resting orders, at 16:00 New York, and refuses orders after it", async () => {
    // Monday 2026-03-09 10:00 EDT (14:00 UTC): the session ends at 20:00 UTC.
    const clock = await c.createClock(at('2026-03-09T14:00:00Z'));
    const [n] = await c.accounts(1, clock.id, 'ny-session');
    const open = await c.order(n);
    const pending = await c.order(n, { type: tradingv1.OrderType.ORDER_TYPE_LIMIT, price: 1.09 });
    await c.advance(clock.id, at('2026-03-09T19:59:59Z'));
    expect((await c.events(n, 'position.closed')).length).toBe(0);
    await c.advance(clock.id, at('2026-03-09T20:30:00Z'));
    expect(await c.events(n, 'position.closed')).toEqual([
      expect.objectContaining({ createdAt: at('2026-03-09T20:00:00Z'), data: expect.objectContaining({ position_id: open.id, reason: 'session_end' }) }),
    ]);
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '', status: tradingv1.PositionStatus.POSITION_STATUS_UNSPECIFIED });
    expect(positions.find((x) => x.id === pending.id)).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_CANCELLED, closeReason: 'session_end' });
    await expect(c.order(n)).rejects.toMatchObject({ code: 'order_rejected', message: expect.stringMatching(/^trading_hours/) });
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
  });

  it("rolls the phase's trading day over at 17:00 New York on both sides of the March change", async () => {
    // Friday 2026-03-06 16:30 EST (21:30 UTC): the day that began Thursday 17:00 EST.
    const clock = await c.createClock(at('2026-03-06T21:30:00Z'));
    const [n] = await c.accounts(1, clock.id, 'ny-day');
    const tradingDays = async () => {
      const { analytics } = await h.trading.getAnalytics({ organizationId: org, mode: TEST, number: n });
      return (analytics?.headroom as { trading_days: number }).trading_days;
    };
    const limit = async () => {
      const { analytics } = await h.trading.getAnalytics({ organizationId: org, mode: TEST, number: n });
      return (analytics?.headroom as { daily_loss_limit: number }).daily_loss_limit;
    };
    const lose = async () => {
      const p = await c.order(n, { volume: 1 });
      await c.clockQuote(clock.id, 'EURUSD', 1.099, 1.0991);
      await c.close(n, p.id);
      await c.clockQuote(clock.id, 'EURUSD', 1.1, 1.1001);
    };
    await lose(); // day 2026-03-05, -110
    expect(await tradingDays()).toBe(1);
    await c.advance(clock.id, at('2026-03-06T21:59:59Z'));
    expect(await limit()).toBe(95_000);
    await c.advance(clock.id, at('2026-03-06T22:00:00Z'));
    // A new day at 17:00 EST: measured from the balance it began with.
    expect(await limit()).toBe(94_890);
    await lose(); // day 2026-03-06
    expect(await tradingDays()).toBe(2);
    // Sunday 2026-03-08, 16:59:59 EDT = 20:59:59 UTC: still Saturday's day (which began at 22:00 UTC on the 7th, EST).
    await c.advance(clock.id, at('2026-03-08T20:59:59Z'));
    expect(await limit()).toBe(94_780);
    await lose();
    expect(await tradingDays()).toBe(3);
    // 17:00 EDT is 21:00 UTC: the day now rolls an hour earlier in UTC.
    await c.advance(clock.id, at('2026-03-08T21:00:00Z'));
    expect(await limit()).toBe(94_670);
    await lose();
    expect(await tradingDays()).toBe(4);
    const days = await h.sql.query<{ day: string }>(`SELECT DISTINCT to_char(trading_day, 'YYYY-MM-DD') AS day FROM positions WHERE account_number = :n ORDER BY 1`, {
      replacements: { n },
      type: QueryTypes.SELECT,
    });
    expect(days.map((d) => d.day)).toEqual(['2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08']);
  });
});

describe('time rules on live time', () => {
  it('the scheduler breaches an inactive account within seconds of its moment, and moves the moment of one that traded since', async () => {
    const { accounts } = await h.api.createAccounts({ organizationId: liveOrg, mode: Mode.MODE_LIVE, count: 2, program: 'live-idle', initialBalance: 0 });
    const [idle, busy] = accounts.map((a) => a.number);
    await h.trading.placeOrder({ organizationId: liveOrg, mode: Mode.MODE_LIVE, number: busy, symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
    // Both phases began two days ago (so their deadlines are due now); one account traded a minute ago.
    await h.sql.query(`UPDATE accounts SET attempt_started_at = now() - interval '2 days' WHERE number IN (:idle, :busy)`, { replacements: { idle, busy } });
    await h.sql.query(`UPDATE rule_deadlines SET due_at = now() - interval '1 day' WHERE account_number IN (:idle, :busy)`, { replacements: { idle, busy } });
    const status = async (number: string) => (await h.api.getAccount({ organizationId: liveOrg, mode: Mode.MODE_LIVE, number })).account?.status;
    await waitUntil(async () => (await status(idle)) === BREACHED, { what: 'the idle account breached', timeoutMs: 10_000 });
    const [due] = await h.sql.query<{ due_at: Date }>(`SELECT due_at FROM rule_deadlines WHERE account_number = :busy AND rule = 'inactivity'`, {
      replacements: { busy },
      type: QueryTypes.SELECT,
    });
    expect(due.due_at.getTime()).toBeGreaterThan(Date.now() + 23 * HOUR);
    expect(await status(busy)).toBe(ACTIVE);
    const [event] = (await h.sql.query<{ data: { rule: string } }>(`SELECT data FROM events WHERE type = 'account.breached' AND data->>'account' = :idle`, {
      replacements: { idle },
      type: QueryTypes.SELECT,
    }));
    expect(event.data.rule).toBe('inactivity');
  });
});
