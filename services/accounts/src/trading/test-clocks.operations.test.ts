import { QueryTypes } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { ADVANCING, at, clockHelpers, READY, TEST } from '../test/clock-helpers';
import { startHarness, type Harness } from '../test/harness';
import { phase } from '../test/lifecycle-helpers';
import { expectCode } from '../test/trading-helpers';

/**
 * SPEC 14's operations on an account on a test clock (SPEC 13): a halt, a balance adjustment, a
 * reinstatement and a payout's decisions are stamped with the clock's time, like its trades; the
 * account they changed is evaluated at the clock's prices, and the clock still advances.
 */
let h: Harness;
let org: string;
const c = clockHelpers(
  () => h,
  () => org,
);
const ACTIVE = accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE;
const BREACHED = accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED;
// A Wednesday and the Thursday after it, mid-morning UTC.
const WED = at('2025-01-08T10:00:00.000Z');
const THU = at('2025-01-09T10:00:00.000Z');
const FRI = at('2025-01-10T10:00:00.000Z');
const scope = () => ({ organizationId: org, mode: TEST });

beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(0);
  await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
  const program = (name: string, phases: unknown[]) => h.api.createProgram({ ...scope(), program: { name, initial_balance: 100000, phases } });
  await program('ops-eval', [phase('Evaluation', { profit_target_pct: 50 })]);
  await program('ops-halt-all', [phase('Evaluation', { profit_target_pct: 50 })]);
  await program('ops-funded', [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, payout_requires_approval: true }]);
});
afterAll(() => h.close());

async function haltedAt(number: string): Promise<Date | null> {
  const [row] = await h.sql.query<{ halted_at: Date | null }>('SELECT halted_at FROM accounts WHERE number = :number', {
    replacements: { number },
    type: QueryTypes.SELECT,
  });
  return row.halted_at;
}

async function eventTimes(number: string, type: string): Promise<Date[]> {
  return (await c.events(number, type)).map((e) => e.createdAt);
}

const adjust = (number: string, amount: number) => h.trading.adjustBalance({ ...scope(), number, amount, reason: 'correction' });

describe('operations on an account on a test clock', () => {
  it('halts, adjusts, reinstates and resumes it at the clock’s time, and the clock still advances', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'ops-eval');

    const { account: halted } = await h.api.haltAccount({ ...scope(), number: n, reason: 'review' });
    expect(halted).toMatchObject({ tradingHalted: true, testClockId: clock.id });
    expect(await haltedAt(n)).toEqual(WED);
    expect(await eventTimes(n, 'account.halted')).toEqual([WED]);
    await expectCode(c.order(n), 'order_rejected');

    const { adjustment: credit } = await adjust(n, 500);
    expect(credit).toMatchObject({ amount: 500, balanceAfter: 100_500, createdAt: WED });
    expect(await eventTimes(n, 'account.adjusted')).toEqual([WED]);

    expect(await c.advance(clock.id, THU)).toMatchObject({ status: READY, frozenTime: THU });
    expect(await c.account(n)).toMatchObject({ status: ACTIVE, tradingHalted: true, balance: 100_500 });

    // A debit below the total-loss floor (90,000) breaches it at once, at the clock's time.
    const { adjustment: debit } = await adjust(n, -20_000);
    expect(debit).toMatchObject({ balanceAfter: 80_500, createdAt: THU });
    expect(await c.account(n)).toMatchObject({ status: BREACHED, balance: 80_500 });
    expect(await eventTimes(n, 'account.breached')).toEqual([THU]);

    // Corrected, then reinstated: active again, the breach flag marked at the clock's time.
    await adjust(n, 20_000);
    const { account: reinstated } = await h.trading.reinstateAccount({ ...scope(), number: n, reason: 'booked by mistake' });
    expect(reinstated).toMatchObject({ status: ACTIVE, balance: 100_500 });
    expect(await eventTimes(n, 'account.reinstated')).toEqual([THU]);
    const { flags } = await h.trading.listFlags({ ...scope(), number: n, pageSize: 0, pageToken: '' });
    expect(flags.find((f) => f.rule === 'max_total_loss')).toMatchObject({ createdAt: THU, reinstatedAt: THU, reinstatedReason: 'booked by mistake' });

    await h.api.resumeAccount({ ...scope(), number: n });
    expect(await eventTimes(n, 'account.resumed')).toEqual([THU]);
    expect(await c.order(n)).toMatchObject({ openedAt: THU });

    expect(await c.advance(clock.id, FRI)).toMatchObject({ status: READY, frozenTime: FRI });
    expect(await c.account(n)).toMatchObject({ status: ACTIVE, tradingHalted: false });
    const { deals } = await h.trading.listTrades({ ...scope(), number: n, pageSize: 0, pageToken: '' });
    expect(deals.map((d) => d.closedAt)).toEqual([WED, THU, THU]);
  });

  it('refuses an adjustment and a reinstatement while the clock advances', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'ops-eval');
    await h.sql.transaction(async (tx) => {
      // A step of the walk locks the clock's accounts: holding one keeps the clock advancing.
      await h.sql.query('SELECT number FROM accounts WHERE number = :n FOR UPDATE', { replacements: { n }, transaction: tx });
      const { testClock } = await h.api.advanceTestClock({ ...scope(), id: clock.id, frozenTime: THU });
      expect(testClock).toMatchObject({ status: ADVANCING });
      await expectCode(adjust(n, 100), 'conflict');
      await expectCode(h.trading.reinstateAccount({ ...scope(), number: n, reason: 'x' }), 'conflict');
    });
    expect(await c.ready(clock.id)).toMatchObject({ frozenTime: THU });
    expect(await adjust(n, 100)).toMatchObject({ adjustment: { createdAt: THU } });
  });

  it('halts every account of a program, each event and halt at its clock’s time', async () => {
    const clock = await c.createClock(WED);
    const numbers = await c.accounts(2, clock.id, 'ops-halt-all');
    const { accounts: halted } = await h.api.haltProgram({ ...scope(), name: 'ops-halt-all', reason: 'audit' });
    expect(halted).toBe(2);
    for (const n of numbers) {
      expect(await haltedAt(n)).toEqual(WED);
      expect(await c.events(n, 'account.halted')).toEqual([expect.objectContaining({ createdAt: WED, data: { account: Number(n), reason: 'audit' } })]);
    }
    expect(await c.advance(clock.id, THU)).toMatchObject({ status: READY });
    const { accounts: resumed } = await h.api.resumeProgram({ ...scope(), name: 'ops-halt-all' });
    expect(resumed).toBe(2);
    for (const n of numbers) expect(await eventTimes(n, 'account.resumed')).toEqual([THU]);
  });

  it('decides a payout at the clock’s time: requested on one day, approved and paid on the next', async () => {
    const clock = await c.createClock(WED);
    const [n] = await c.accounts(1, clock.id, 'ops-funded');
    const a = await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.1021, 1.1022);
    await c.close(n, a.id);
    const { payout: requested } = await h.trading.createPayout({ ...scope(), number: n });
    expect(requested).toMatchObject({ status: tradingv1.PayoutStatus.PAYOUT_STATUS_PENDING, amount: 2000, requestedAt: WED });

    await c.advance(clock.id, THU);
    const decidedBy = { type: tradingv1.DeciderType.DECIDER_TYPE_API_KEY, id: 'key_ops' };
    const { payout: approved } = await h.trading.approvePayout({ ...scope(), payoutId: requested?.id as string, decidedBy });
    expect(approved).toMatchObject({ status: tradingv1.PayoutStatus.PAYOUT_STATUS_APPROVED, decidedAt: THU, balanceAfter: 100_000 });
    expect(await c.account(n)).toMatchObject({ balance: 100_000 });
    const { payout: paid } = await h.trading.markPayoutPaid({ ...scope(), payoutId: requested?.id as string, reference: 'wire-1' });
    expect(paid).toMatchObject({ status: tradingv1.PayoutStatus.PAYOUT_STATUS_PAID, paidAt: THU });
    expect(await eventTimes(n, 'payout.requested')).toEqual([WED]);
    expect(await eventTimes(n, 'payout.approved')).toEqual([THU]);
    expect(await eventTimes(n, 'payout.paid')).toEqual([THU]);
    expect(await c.advance(clock.id, FRI)).toMatchObject({ status: READY });
  });
});
