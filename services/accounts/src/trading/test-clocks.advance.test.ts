import { QueryTypes } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { ADVANCING, at, clockHelpers, READY, TEST } from '../test/clock-helpers';
import { startHarness, type Harness } from '../test/harness';
import { phase } from '../test/lifecycle-helpers';
import { expectCode } from '../test/trading-helpers';

/**
 * Advancing a test clock (SPEC 13): time walks forward in order and every effect of the time that
 * passes is applied at its moment (each trading day's start with its daily reference and
 * end-of-day trailing floor, each weekend's start), each event stamped with that moment; trading
 * days count clock days; an advancing clock refuses what would act at a time it is leaving.
 */
let h: Harness;
let org: string;
const c = clockHelpers(
  () => h,
  () => org,
);
const BREACHED = accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED;
const ACTIVE = accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE;
const PASSED = accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED;
// A Wednesday, mid-morning UTC; trading days roll over at 00:00 UTC.
const WED = at('2025-01-08T10:00:00.000Z');

beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(0);
  await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
  const program = (name: string, phases: unknown[]) => h.api.createProgram({ organizationId: org, mode: TEST, program: { name, initial_balance: 100000, phases } });
  await program('eod-floor', [phase('Evaluation', { profit_target_pct: 50, max_daily_loss_pct: 50, max_total_loss_pct: 10, total_loss_mode: 'trailing_eod' })]);
  await program('three-days', [phase('Phase 1', { min_trading_days: 3 }), phase('Phase 2')]);
  await program('funded-two-days', [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, min_trading_days: 2 }]);
});
afterAll(() => h.close());

async function headroom(number: string): Promise<Record<string, unknown>> {
  const { analytics } = await h.trading.getAnalytics({ organizationId: org, mode: TEST, number });
  return analytics?.headroom as Record<string, unknown>;
}

async function dayStarts(number: string): Promise<Array<{ day: string; balance: number }>> {
  const rows = await h.sql.query<{ day: string; balance: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, start_of_day_balance AS balance FROM account_days WHERE account_number = :number ORDER BY day`,
    { replacements: { number }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ day: r.day, balance: Number(r.balance) }));
}

describe('advancing a test clock', () => {
  it('starts each trading day with its new daily reference and flags a position held into the weekend at its start, once', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id);
    const a = await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.1051, 1.1052);
    await c.close(n, a.id);
    const b = await c.order(n, { volume: 1 });
    // Day one: the daily limit is measured from the balance the day began with.
    expect(await headroom(n)).toMatchObject({ daily_loss_limit: 95_000 });

    expect(await c.advance(clock.id, at('2025-01-09T10:00:00Z'))).toMatchObject({ status: READY, frozenTime: at('2025-01-09T10:00:00Z') });
    // Thursday began with the 105,000 Wednesday closed at.
    expect(await headroom(n)).toMatchObject({ daily_loss_limit: 100_000 });
    expect(await c.events(n, 'account.flagged')).toEqual([]);

    await c.advance(clock.id, at('2025-01-11T12:00:00Z'));
    await c.advance(clock.id, at('2025-01-19T12:00:00Z'));
    const flagged = await c.events(n, 'account.flagged');
    expect(flagged).toEqual([expect.objectContaining({ createdAt: at('2025-01-11T00:00:00Z'), data: expect.objectContaining({ rule: 'weekend_holding', position_id: b.id }) })]);
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(flags).toEqual([expect.objectContaining({ rule: 'weekend_holding', createdAt: at('2025-01-11T00:00:00Z') })]);
    // One start per clock day, each recorded once.
    const days = await dayStarts(n);
    expect(days.map((d) => d.day)).toEqual(Array.from({ length: 12 }, (_v, i) => `2025-01-${String(8 + i).padStart(2, '0')}`));
    expect(days.slice(1).every((d) => d.balance === 105_000)).toBe(true);
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
  });

  it('breaches at the day start whose end-of-day trailing floor the equity is below, at that moment', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'eod-floor');
    const a = await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.1101, 1.1102);
    await c.close(n, a.id);
    await c.order(n, { volume: 10 });
    // 110,000 closed, 10 lots bought at 1.1102 and marked at 1.1000: equity 99,800, above Wednesday's floor of 90,000.
    await c.clockQuote(clock.id, 'EURUSD', 1.1, 1.1001);
    expect(await c.account(n)).toMatchObject({ status: ACTIVE, equity: 99_800 });
    expect(await headroom(n)).toMatchObject({ total_loss_limit: 90_000 });

    await c.advance(clock.id, at('2025-01-10T10:00:00Z'));
    const thursday = at('2025-01-09T00:00:00Z');
    // Thursday's floor follows Wednesday's end-of-day balance: 110,000 - 10,000.
    expect(await c.account(n)).toMatchObject({ status: BREACHED, balance: 99_800 });
    expect(await c.events(n, 'account.breached')).toEqual([
      expect.objectContaining({ createdAt: thursday, data: expect.objectContaining({ rule: 'max_total_loss', limit: 100_000, equity: 99_800 }) }),
    ]);
    const { deals } = await h.trading.listTrades({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(deals[deals.length - 1]).toMatchObject({ closedAt: thursday, closePrice: 1.1 });
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(flags[0]).toMatchObject({ rule: 'max_total_loss', createdAt: thursday, evidence: expect.objectContaining({ time: thursday.toISOString() }) });
  });

  it('counts trading days on clock days: the minimum is reached two advances later, and the next phase lives on the clock', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'three-days');
    const a = await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.1021, 1.1022);
    await c.close(n, a.id);
    // 102,000: above the 1% target, on one trading day of three.
    expect(await c.account(n)).toMatchObject({ status: ACTIVE, balance: 102_000 });
    await c.advance(clock.id, at('2025-01-09T10:00:00Z'));
    await c.close(n, (await c.order(n)).id);
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
    await c.advance(clock.id, at('2025-01-10T10:00:00Z'));
    await c.order(n);
    const passed = await c.account(n);
    expect(passed).toMatchObject({ status: PASSED, nextAccount: expect.any(String) });
    const friday = at('2025-01-10T10:00:00Z');
    expect(await c.events(n, 'account.passed')).toEqual([expect.objectContaining({ createdAt: friday, data: expect.objectContaining({ trading_days: 3 }) })]);
    const next = await c.account(passed.nextAccount as string);
    expect(next).toMatchObject({ testClockId: clock.id, createdAt: friday, phase: expect.objectContaining({ index: 1 }) });
    expect((await c.events(next.number, 'account.created'))[0]).toMatchObject({ createdAt: friday });
  });

  it('pays out only once the minimum trading days have passed on the clock, at the clock’s time', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'funded-two-days');
    const a = await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.1021, 1.1022);
    await c.close(n, a.id);
    await expectCode(h.trading.createPayout({ organizationId: org, mode: TEST, number: n }), 'payout_not_allowed');
    await c.advance(clock.id, at('2025-01-09T10:00:00Z'));
    await c.close(n, (await c.order(n)).id);
    const { payout } = await h.trading.createPayout({ organizationId: org, mode: TEST, number: n });
    expect(payout).toMatchObject({ amount: 1990, createdAt: at('2025-01-09T10:00:00Z') });
  });

  it('refuses another advance, its quotes and its accounts’ orders while advancing, then is ready at its target with test_clock.ready', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id);
    const target = at('2025-02-07T10:00:00Z');
    // A step of the walk locks the clock's accounts: holding one keeps the clock advancing.
    await h.sql.transaction(async (tx) => {
      await h.sql.query('SELECT number FROM accounts WHERE number = :n FOR UPDATE', { replacements: { n }, transaction: tx });
      const { testClock } = await h.api.advanceTestClock({ organizationId: org, mode: TEST, id: clock.id, frozenTime: target });
      expect(testClock).toMatchObject({ status: ADVANCING, frozenTime: target });
      expect(await c.clock(clock.id)).toMatchObject({ status: ADVANCING, frozenTime: target });
      await expectCode(h.api.advanceTestClock({ organizationId: org, mode: TEST, id: clock.id, frozenTime: at('2025-03-01T00:00:00Z') }), 'conflict');
      await expectCode(h.trading.publishTestClockQuote({ organizationId: org, mode: TEST, testClockId: clock.id, quote: { symbol: 'EURUSD', bid: 1.2, ask: 1.2001 } }), 'conflict');
      await expectCode(c.order(n), 'conflict');
    });
    const ready = await c.ready(clock.id);
    expect(ready).toMatchObject({ status: READY, frozenTime: target });
    const readyEvents = (await c.events(undefined, 'test_clock.ready')).filter((e) => e.data.id === clock.id);
    expect(readyEvents[0]).toEqual({ type: 'test_clock.ready', data: { id: clock.id, frozen_time: target.toISOString() }, createdAt: target });
    expect(await c.order(n)).toMatchObject({ openedAt: ready.frozenTime });
  });
});

describe('deleting a test clock', () => {
  it('archives its accounts at its time; the clock is gone', async () => {
    const clock = await c.createClock(WED);
    const numbers = await c.accounts(2, clock.id);
    await c.order(numbers[0]);
    expect(await h.api.deleteTestClock({ organizationId: org, mode: TEST, id: clock.id })).toEqual({ id: clock.id, archivedAccounts: 2 });
    for (const n of numbers) expect(await c.account(n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED });
    const archived = await c.events(undefined, 'account.archived');
    expect(archived.filter((e) => numbers.includes(String(e.data.account))).map((e) => e.createdAt)).toEqual([WED, WED]);
    await expectCode(h.api.getTestClock({ organizationId: org, mode: TEST, id: clock.id }), 'not_found');
    await expectCode(h.api.deleteTestClock({ organizationId: org, mode: TEST, id: clock.id }), 'not_found');
    await expectCode(h.api.advanceTestClock({ organizationId: org, mode: TEST, id: clock.id, frozenTime: at('2025-01-09T00:00:00Z') }), 'not_found');
    await expectCode(h.trading.publishTestClockQuote({ organizationId: org, mode: TEST, testClockId: clock.id, quote: { symbol: 'EURUSD', bid: 1, ask: 1 } }), 'not_found');
    await expectCode(c.accounts(1, clock.id), 'invalid_request', 'test_clock');
    expect((await h.api.listTestClocks({ organizationId: org, mode: TEST, pageSize: 200, pageToken: '' })).testClocks.map((k) => k.id)).not.toContain(clock.id);
    await expectCode(c.order(numbers[1], { side: tradingv1.Side.SIDE_SELL }), 'account_archived');
  });
});

describe('a claimed account', () => {
  it('keeps its clock', async () => {
    const own = h.newOrg(0);
    const { testClock } = await h.api.createTestClock({ organizationId: own, mode: TEST, name: '', frozenTime: WED });
    const id = testClock?.id as string;
    await h.api.createAccounts({ organizationId: own, mode: TEST, count: 1, program: '', initialBalance: 0, testClockId: id });
    const { account } = await h.api.claimAccount({ organizationId: own, mode: TEST, name: 'Jane', email: 'jane@example.com' });
    expect(account).toMatchObject({ testClockId: id, traderId: expect.any(String) });
    const [assigned] = (await h.sql.query<{ created_at: Date }>(
      `SELECT created_at FROM events WHERE organization_id = :own AND type = 'account.assigned'`,
      { replacements: { own }, type: QueryTypes.SELECT },
    ));
    expect(assigned.created_at).toEqual(WED);
  });
});
