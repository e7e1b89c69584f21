import { Mode } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { phase, failure, lifecycleHelpers } from '../test/lifecycle-helpers';
import { tradingHelpers } from '../test/trading-helpers';

/** SPEC 10's resets (a new attempt for a credit) and payouts (the closed profit, split, once) against the real service. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const { count, assignedAccount } = lifecycleHelpers(() => h);

describe('reset', () => {
  it('starts a new attempt in one transaction: positions closed, money back, sessions revoked, one credit, account.reset', async () => {
    const org = h.newOrg(3);
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'standard');
    await a.quote('EURUSD', 1.1, 1.1);
    await a.order(org, n, { volume: 10 });
    await a.order(org, n, { volume: 1, type: tradingv1.OrderType.ORDER_TYPE_LIMIT, price: 1.05 });
    await a.quote('EURUSD', 1.094, 1.094);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
    const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    const credits = h.auth.credits(org);

    const { account } = await h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    expect(account).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, attempt: 2, balance: 100000, equity: 100000, peakEquity: 100000 });
    expect(h.auth.credits(org)).toBe(credits - 1);
    expect(await a.events(n, 'account.reset')).toEqual([expect.objectContaining({ account: Number(n), attempt: 2 })]);
    expect(await count(`SELECT count(*) AS n FROM positions WHERE account_number = :n AND status IN ('open', 'pending')`, { n })).toBe(0);

    // A session of the new attempt works; trading days and positions count afresh.
    const session = await h.api.createExecutorSession({ account: n, password: credentials?.password ?? '', clientIp: '127.0.0.1' });
    await a.order(org, n, { volume: 1 });
    expect(await count('SELECT count(*) AS n FROM positions WHERE account_number = :n AND attempt = 2', { n })).toBe(1);
    expect(await count('SELECT count(*) AS n FROM positions WHERE account_number = :n AND attempt = 1', { n })).toBe(2);
    // The next reset revokes it.
    await h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    expect(await failure(h.api.getExecutorSession({ token: session.token }))).toMatchObject({ code: 'invalid_session' });
    expect((await a.account(org, n)).attempt).toBe(3);
  });

  it('without a credit: 402 insufficient_credits and nothing changed', async () => {
    const org = h.newOrg(1);
    const a = tradingHelpers(h, h.sql);
    const [n] = await a.newAccounts(org, 1);
    await h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: 'test' });
    expect(await failure(h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n }))).toMatchObject({ code: 'insufficient_credits' });
    expect(await a.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, attempt: 1 });
    expect(await a.events(n, 'account.reset')).toHaveLength(0);
  });

  it('refuses passed (account_passed), archived (account_archived) and funded (conflict) accounts, spending nothing', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({
      organizationId: org,
      mode: Mode.MODE_LIVE,
      program: { name: 'instant', initial_balance: 100000, phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 }] },
    });
    const a = tradingHelpers(h, h.sql);
    const [archived] = await a.newAccounts(org, 1);
    await h.api.archiveAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: archived });
    const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'instant', initialBalance: 0 });
    await h.sql.query(`UPDATE accounts SET status = 'passed' WHERE number = :n`, { replacements: { n: archived } }).catch(() => undefined);
    const [passed] = await a.newAccounts(org, 1);
    await h.sql.query(`UPDATE accounts SET status = 'passed' WHERE number = :n`, { replacements: { n: passed } });
    const credits = h.auth.credits(org);
    expect(await failure(h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: passed }))).toMatchObject({ code: 'account_passed' });
    expect(await failure(h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: accounts[0].number }))).toMatchObject({ code: 'conflict' });
    await h.sql.query(`UPDATE accounts SET status = 'archived' WHERE number = :n`, { replacements: { n: archived } });
    expect(await failure(h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: archived }))).toMatchObject({ code: 'account_archived' });
    expect(h.auth.credits(org)).toBe(credits);
  });

  it('a reset racing a breach is serialized by the row lock', async () => {
    const org = h.newOrg(20);
    const a = tradingHelpers(h, h.sql);
    const numbers = await a.newAccounts(org, 4);
    await a.quote('AUDUSD', 0.66, 0.66);
    for (const n of numbers) await a.order(org, n, { symbol: 'AUDUSD', volume: 2 });
    const outcomes = await Promise.all(
      numbers.map((n) =>
        Promise.allSettled([h.trading.resetAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n }), h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: 'race' })]),
      ),
    );
    for (const [i, n] of numbers.entries()) {
      const [reset, breach] = outcomes[i];
      expect(reset.status).toBe('fulfilled');
      const account = await a.account(org, n);
      expect(account.attempt).toBe(2);
      // Either order is a consistent history: breached within attempt 2 (reset first), or active
      // in attempt 2 with the breach booked to attempt 1 (breach first, then undone by the reset).
      const breachesOfAttempt2 = await count('SELECT count(*) AS n FROM flags WHERE account_number = :n AND attempt = 2', { n });
      if (account.status === accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED) {
        expect(breach.status).toBe('fulfilled');
        expect(breachesOfAttempt2).toBe(1);
      } else {
        expect(account.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
        expect(breachesOfAttempt2).toBe(0);
        expect(account.balance).toBe(100000);
      }
      expect(await count(`SELECT count(*) AS n FROM positions WHERE account_number = :n AND status = 'open'`, { n })).toBe(0);
    }
  });
});

describe('payouts', () => {
  const funded = (name: string, over: Record<string, unknown> = {}) => ({
    name,
    initial_balance: 100000,
    phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 80, warning_at_pct: null, ...over }],
  });

  async function profitable(org: string, program: string, symbol: string, volume = 1): Promise<string> {
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, program);
    await a.quote(symbol, 1, 1);
    const p = await a.order(org, n, { symbol, volume });
    await a.quote(symbol, 1.02, 1.02);
    await h.trading.closePosition({ organizationId: org, mode: Mode.MODE_LIVE, number: n, positionId: p.id });
    return n;
  }

  it('pays out the closed profit with the split, once; refuses more with payout_not_allowed saying why', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: funded('funded-a') });
    const n = await profitable(org, 'funded-a', 'NZDUSD');
    const account = await tradingHelpers(h, h.sql).account(org, n);
    const profit = Math.round((account.balance - 100000) * 100) / 100;
    expect(profit).toBeGreaterThan(0);

    const tooMuch = await failure(h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n, amount: profit + 1 }));
    expect(tooMuch).toMatchObject({ code: 'payout_not_allowed' });
    expect(tooMuch.message).toContain('exceeds the closed profit');

    const { payout } = await h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    expect(payout).toMatchObject({ account: n, amount: profit, profitSplitPct: 80, balanceAfter: 100000 });
    expect((payout?.traderShare ?? 0) + (payout?.firmShare ?? 0)).toBeCloseTo(profit, 2);
    expect((await tradingHelpers(h, h.sql).account(org, n)).balance).toBe(100000);
    expect(await tradingHelpers(h, h.sql).events(n, 'payout.created')).toEqual([expect.objectContaining({ amount: profit, trader_share: payout?.traderShare })]);

    const again = await failure(h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n }));
    expect(again).toMatchObject({ code: 'payout_not_allowed' });
    expect(again.message).toContain('no closed profit');
    const list = await h.trading.listPayouts({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '' });
    expect(list.payouts.map((p) => p.id)).toEqual([payout?.id]);
  });

  it('refuses an evaluation account and too few trading days', async () => {
    const org = h.newOrg(10);
    const [evaluation] = await tradingHelpers(h, h.sql).newAccounts(org, 1);
    expect((await failure(h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: evaluation }))).message).toContain('evaluation phase');
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: funded('funded-days', { min_trading_days: 3 }) });
    const n = await profitable(org, 'funded-days', 'XAGUSD');
    const refused = await failure(h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n }));
    expect(refused).toMatchObject({ code: 'payout_not_allowed' });
    expect(refused.message).toContain('1 of the 3 trading days');
  });

  it('a payout racing a breach is serialized by the row lock', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: funded('funded-race') });
    const numbers: string[] = [];
    for (let i = 0; i < 3; i += 1) numbers.push(await profitable(org, 'funded-race', 'NZDUSD'));
    for (const n of numbers) {
      const before = await tradingHelpers(h, h.sql).account(org, n);
      const [payout, breach] = await Promise.allSettled([
        h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n }),
        h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: 'race' }),
      ]);
      expect(breach.status).toBe('fulfilled');
      const after = await tradingHelpers(h, h.sql).account(org, n);
      expect(after.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
      const paid = await count('SELECT count(*) AS n FROM payouts WHERE account_number = :n', { n });
      if (payout.status === 'fulfilled') {
        expect(paid).toBe(1);
        expect(after.balance).toBe(100000);
      } else {
        expect(payout.reason).toMatchObject({ code: 'payout_not_allowed' });
        expect(paid).toBe(0);
        expect(after.balance).toBe(before.balance);
      }
    }
  });

  it('a payout lowers the peak a trailing floor follows, so paying out does not breach', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: funded('funded-trailing', { total_loss_mode: 'trailing', max_daily_loss_pct: 30 }) });
    // +20,000 on 10 lots: peak 120,000, trailing floor 110,000.
    const n = await profitable(org, 'funded-trailing', 'AUDUSD', 10);
    await h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    const a = tradingHelpers(h, h.sql);
    await a.order(org, n, { symbol: 'AUDUSD', volume: 1 });
    await a.quote('AUDUSD', 1.0199, 1.0199);
    expect(await a.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, peakEquity: 100000 });
  });

  it('refuses while the consistency rule does not hold', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: funded('funded-consistent', { consistency_pct: 30 }) });
    const n = await profitable(org, 'funded-consistent', 'ETHUSD');
    const refused = await failure(h.trading.createPayout({ organizationId: org, mode: Mode.MODE_LIVE, number: n }));
    expect(refused.message).toContain('consistency');
  });
});
