import { tradingv1 } from '@propdesk/proto';
import { accountsv1 } from '@propdesk/proto';
import { at, clockHelpers, TEST } from '../test/clock-helpers';
import { startHarness, type Harness } from '../test/harness';
import { phase } from '../test/lifecycle-helpers';

/**
 * SPEC 15's engine rules on a test clock's quotes (evaluated at once, as live quotes are): a daily
 * loss that locks the day instead of breaching (daily_loss_action lock) and the day's profit cap
 * close the positions, emit account.locked {account, rule, until} (until: the next trading day's
 * start) and refuse orders naming the rule until then; the clock advanced past it, orders are taken
 * again and the account was never breached.
 */
let h: Harness;
let org: string;
const c = clockHelpers(
  () => h,
  () => org,
);
const ACTIVE = accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE;
// A Tuesday in New York's winter: 10:00 EST is 15:00 UTC; the firm's day starts at 17:00 New York (22:00 UTC).
const TUESDAY = at('2026-01-13T15:00:00.000Z');
const NEXT_DAY_START = at('2026-01-13T22:00:00.000Z');

beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(0);
  await h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1 } });
  const program = (name: string, rules: Record<string, unknown>) =>
    h.api.createProgram({ organizationId: org, mode: TEST, program: { name, initial_balance: 100000, phases: [phase('Evaluation', { profit_target_pct: 20, ...rules })] } });
  const day = { trading_day: { timezone: 'America/New_York', start: '17:00' } };
  await program('lock-day', { daily_loss_action: 'lock', ...day });
  await program('cap-day', { daily_profit_cap_pct: 2, ...day });
});
afterAll(() => h.close());

async function refused(number: string): Promise<string | undefined> {
  try {
    await c.order(number, { volume: 1 });
    return undefined;
  } catch (err) {
    return (err as { message?: string }).message;
  }
}

describe('the daily lock and the profit cap', () => {
  it('a daily loss with daily_loss_action lock closes the positions and locks until the next trading day, without a breach', async () => {
    const clock = await c.createClock(TUESDAY);
    const [n] = await c.accounts(1, clock.id, 'lock-day');
    const position = await c.order(n, { volume: 10 });
    // -0.0051 on 10 lots: -5,100, past the 5% daily loss.
    await c.clockQuote(clock.id, 'EURUSD', 1.0949, 1.0949);
    const account = await c.account(n);
    expect(account).toMatchObject({ status: ACTIVE, balance: 94_900 });
    expect(await c.events(n, 'account.locked')).toEqual([
      { type: 'account.locked', data: { account: Number(n), rule: 'daily_lock', until: NEXT_DAY_START.toISOString() }, createdAt: TUESDAY },
    ]);
    expect(await c.events(n, 'account.breached')).toEqual([]);
    const closed = await c.events(n, 'position.closed');
    expect(closed).toEqual([expect.objectContaining({ data: expect.objectContaining({ position_id: position.id, reason: 'daily_lock' }) })]);
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: TEST, number: n, pageSize: 0, pageToken: '' });
    expect(flags).toEqual([expect.objectContaining({ rule: 'daily_lock', action: 'flag' })]);
    expect(await refused(n)).toMatch(/^daily_lock: account \d+ is locked until 2026-01-13T22:00:00.000Z/);
    expect((await c.events(n, 'order.rejected')).map((e) => e.data.rule)).toEqual(['daily_lock']);

    // A second before the next day: still locked; at its start: orders again.
    await c.advance(clock.id, at('2026-01-13T21:59:59Z'));
    expect(await refused(n)).toMatch(/^daily_lock/);
    await c.advance(clock.id, NEXT_DAY_START);
    expect(await refused(n)).toBeUndefined();
    expect(await c.account(n)).toMatchObject({ status: ACTIVE });
  });

  it("the day's profit cap closes the positions once the day's profit reaches it, and locks the account for the day", async () => {
    const clock = await c.createClock(TUESDAY);
    const [n] = await c.accounts(1, clock.id, 'cap-day');
    await c.order(n, { volume: 10 });
    // +1,990 of a 2,000 cap: nothing yet.
    await c.clockQuote(clock.id, 'EURUSD', 1.10199, 1.10199);
    expect(await c.events(n, 'account.locked')).toEqual([]);
    await c.clockQuote(clock.id, 'EURUSD', 1.102, 1.102);
    expect(await c.events(n, 'account.locked')).toEqual([expect.objectContaining({ data: { account: Number(n), rule: 'daily_profit_cap', until: NEXT_DAY_START.toISOString() } })]);
    expect(await c.account(n)).toMatchObject({ status: ACTIVE, balance: 102_000 });
    expect(await refused(n)).toMatch(/^daily_profit_cap/);
    await c.advance(clock.id, at('2026-01-14T12:00:00Z'));
    expect(await refused(n)).toBeUndefined();
  });

  it('orders are refused and previewed with the lock while it holds', async () => {
    const clock = await c.createClock(TUESDAY);
    const [n] = await c.accounts(1, clock.id, 'lock-day');
    await c.order(n, { volume: 10 });
    await c.clockQuote(clock.id, 'EURUSD', 1.0949, 1.0949);
    const preview = await h.trading.previewOrder({ organizationId: org, mode: TEST, number: n, symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
    expect(preview).toMatchObject({ allowed: false, rejections: [expect.objectContaining({ rule: 'daily_lock' })] });
  });
});
