import { Mode } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { phase, lifecycleHelpers } from '../test/lifecycle-helpers';
import { tradingHelpers } from '../test/trading-helpers';

/** SPEC 10's warnings (once per period) and trailing floors as the engine moves them, against the real service. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const { assignedAccount } = lifecycleHelpers(() => h);

describe('warnings', () => {
  it('account.warning once per trading day for the daily allowance, once per attempt for the total', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({
      organizationId: org,
      mode: Mode.MODE_LIVE,
      program: {
        name: 'warned',
        initial_balance: 100000,
        phases: [phase('Only', { profit_target_pct: 10, max_daily_loss_pct: 10, max_total_loss_pct: 12, warning_at_pct: 50 })],
      },
    });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'warned');
    await a.quote('BTCUSD', 60000, 60000);
    await a.order(org, n, { symbol: 'BTCUSD', volume: 10 });
    // -5,100 on 10 BTC: 51% of the 10,000 daily allowance; 42.5% of the 12,000 total one.
    for (const price of [59490, 59485, 59480]) await a.quote('BTCUSD', price, price);
    const daily = await a.events(n, 'account.warning');
    expect(daily).toEqual([expect.objectContaining({ account: Number(n), rule: 'max_daily_loss', limit: 90000 })]);
    expect(daily[0].used_pct).toBeGreaterThanOrEqual(50);
    // -6,100: past half of the total allowance too; the daily warning is not repeated.
    for (const price of [59390, 59385]) await a.quote('BTCUSD', price, price);
    const all = await a.events(n, 'account.warning');
    expect(all.map((e) => e.rule)).toEqual(['max_daily_loss', 'max_total_loss']);
  });
});

describe('trailing floors in the engine', () => {
  const trailing = (name: string, over: Record<string, unknown>) => ({
    name,
    initial_balance: 100000,
    phases: [phase('Only', { profit_target_pct: 50, max_daily_loss_pct: 50, max_total_loss_pct: 5, total_loss_mode: 'trailing', ...over })],
  });

  /** One BTC bought at 60,000: equity is 40,000 + the price. */
  async function holdingBtc(org: string, program: string): Promise<string> {
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, program);
    await a.quote('BTCUSD', 60000, 60000);
    await a.order(org, n, { symbol: 'BTCUSD', volume: 1 });
    return n;
  }

  it('the floor follows the peak equity between quotes, and the breach names the floor it crossed', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: trailing('trails', {}) });
    const a = tradingHelpers(h, h.sql);
    const n = await holdingBtc(org, 'trails');
    // Peak 103,000: the floor is 98,000 now (it was 95,000).
    await a.quote('BTCUSD', 63000, 63000);
    await a.quote('BTCUSD', 58100, 58100);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
    await a.quote('BTCUSD', 57900, 57900);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
    expect(await a.events(n, 'account.breached')).toEqual([expect.objectContaining({ rule: 'max_total_loss', limit: 98000 })]);
  });

  it('with trailing_stops_at_initial the floor stops at the initial balance', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: trailing('trails-to-initial', { trailing_stops_at_initial: true }) });
    const a = tradingHelpers(h, h.sql);
    const n = await holdingBtc(org, 'trails-to-initial');
    // Peak 108,000: without the stop the floor would be 103,000.
    await a.quote('BTCUSD', 68000, 68000);
    await a.quote('BTCUSD', 60500, 60500);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
    await a.quote('BTCUSD', 59999, 59999);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
    expect(await a.events(n, 'account.breached')).toEqual([expect.objectContaining({ rule: 'max_total_loss', limit: 100000 })]);
  });
});
