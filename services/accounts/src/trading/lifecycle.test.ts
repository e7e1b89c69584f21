import { createServiceClient, Mode, QueryTypes, type ServiceClient } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { start, type StartedAccountsService } from '../main';
import { startHarness, type Harness } from '../test/harness';
import { tradingHelpers } from './test-helpers';

/**
 * SPEC 10's lifecycle against the real service: progression to the next phase in the pass's
 * transaction (once, whichever replica passes it; rolled back with the pass when it fails).
 */
let h: Harness;
let second: StartedAccountsService;
let secondTrading: ServiceClient<tradingv1.TradingServiceClient>;
let secondApi: ServiceClient<accountsv1.AccountsServiceClient>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await startHarness();
  second = await start(h.env);
  secondTrading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, second.address, 15_000);
  secondApi = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, second.address, 15_000);
});
afterAll(async () => {
  secondTrading?.close();
  secondApi?.close();
  await second?.stop();
  await h?.close();
});

const phase = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  kind: 'evaluation',
  profit_target_pct: 1,
  max_daily_loss_pct: 5,
  max_total_loss_pct: 10,
  warning_at_pct: null,
  ...over,
});
const threeStep = (name: string) => ({
  name,
  initial_balance: 100000,
  phases: [phase('Phase 1'), phase('Phase 2', { profit_target_pct: 2 }), { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 90 }],
});

async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
  const [row] = await h.sql.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
}

async function eventTypes(org: string, after: number): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return h.sql.query<{ type: string; data: Record<string, unknown> }>(
    `SELECT type, data FROM events WHERE organization_id = :org AND position > :after ORDER BY position`,
    { replacements: { org, after }, type: QueryTypes.SELECT },
  );
}

async function lastPosition(): Promise<number> {
  return count('SELECT coalesce(max(position), 0) AS n FROM events', {});
}

async function assignedAccount(org: string, program: string): Promise<string> {
  const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program, initialBalance: 0 });
  const number = accounts[0].number;
  await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number, name: 'Jane Trader', email: `jane-${number}@example.com` });
  return number;
}

describe('progression', () => {
  it('passing phase 1 provisions phase 2 in the same transaction: same trader and version, linked, new password, no credit', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: threeStep('three-step') });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'three-step');
    const credits = h.auth.credits(org);
    await a.quote('EURUSD', 1.1, 1.1);
    await a.order(org, n, { volume: 10 });
    const before = await lastPosition();
    // +0.0011 on 10 lots: +1,100, above the 1% target.
    await a.quote('EURUSD', 1.1011, 1.1011);

    const passed = await a.account(org, n);
    expect(passed.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    expect(passed.nextAccount).toBeDefined();
    const next = await a.account(org, passed.nextAccount as string);
    expect(next).toMatchObject({
      status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
      program: 'three-step',
      programVersion: 1,
      phase: { index: 1, name: 'Phase 2', kind: 'evaluation' },
      attempt: 1,
      traderId: passed.traderId,
      previousAccount: n,
      initialBalance: 100000,
      balance: 100000,
    });
    expect(h.auth.credits(org)).toBe(credits);
    const first = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    const creds = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: next.number });
    expect(creds.credentials?.password).toBeTruthy();
    expect(creds.credentials?.password).not.toBe(first.credentials?.password);

    const events = (await eventTypes(org, before)).filter((e) => e.type.startsWith('account.'));
    expect(events.map((e) => e.type)).toEqual(['account.passed', 'account.created', 'account.assigned']);
    expect(events[0].data).toMatchObject({ account: Number(n), phase: { index: 0, name: 'Phase 1', kind: 'evaluation' }, next_account: Number(next.number) });
    expect(events[2].data).toMatchObject({ account: Number(next.number), trader_id: passed.traderId });

    // Phase 2 passes into the funded phase; the funded phase never passes.
    await a.order(org, next.number, { volume: 10 });
    await a.quote('EURUSD', 1.1032, 1.1032);
    const phase2 = await a.account(org, next.number);
    expect(phase2.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    const funded = await a.account(org, phase2.nextAccount as string);
    expect(funded).toMatchObject({ phase: { index: 2, name: 'Funded', kind: 'funded' }, previousAccount: next.number });
    await a.order(org, funded.number, { volume: 10 });
    await a.quote('EURUSD', 1.12, 1.12);
    expect((await a.account(org, funded.number)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
  });

  it('an evaluation phase with a consistency rule does not pass on a single day that is all its profit', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: { name: 'consistent', initial_balance: 100000, phases: [phase('Only', { consistency_pct: 50 })] } });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'consistent');
    await a.quote('XAUUSD', 2000, 2000);
    await a.order(org, n, { symbol: 'XAUUSD', volume: 1 });
    // +2,000 (2%), over the 1% target, all of it today: the best day is 100% of the profit.
    for (const price of [2020, 2021]) await a.quote('XAUUSD', price, price);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
    expect(await a.events(n, 'account.passed')).toHaveLength(0);
  });

  it('a one-phase program just ends in passed', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: { name: 'single', initial_balance: 100000, phases: [phase('Only')] } });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'single');
    await a.quote('EURUSD', 1.1, 1.1);
    await a.order(org, n, { volume: 10 });
    await a.quote('EURUSD', 1.1011, 1.1011);
    const passed = await a.account(org, n);
    expect(passed.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    expect(passed.nextAccount).toBeUndefined();
  });

  it('two replicas passing the same account at once create one next account', async () => {
    const org = h.newOrg(50);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: threeStep('race') });
    const a = tradingHelpers(h, h.sql);
    const numbers: string[] = [];
    for (let i = 0; i < 5; i += 1) numbers.push(await assignedAccount(org, 'race'));
    await a.quote('GBPUSD', 1.27, 1.27);
    for (const n of numbers) await a.order(org, n, { symbol: 'GBPUSD', volume: 10 });
    await sleep(700);
    await Promise.all([
      h.trading.publishQuote({ quote: { symbol: 'GBPUSD', bid: 1.2815, ask: 1.2815 } }),
      secondTrading.call.publishQuote({ quote: { symbol: 'GBPUSD', bid: 1.2815, ask: 1.2815 } }),
    ]);
    for (const n of numbers) {
      expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
      expect(await count('SELECT count(*) AS n FROM accounts WHERE previous_account = :n', { n })).toBe(1);
      expect(await a.events(n, 'account.passed')).toHaveLength(1);
    }
  });

  it('a failed provisioning rolls the pass back with it', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: threeStep('fragile') });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'fragile');
    await a.quote('USDJPY', 150, 150);
    await a.order(org, n, { symbol: 'USDJPY', volume: 10 });
    await h.sql.query(`
      CREATE FUNCTION refuse_next_phase() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'provisioning refused for the test'; END $$;
      CREATE TRIGGER refuse_next_phase BEFORE INSERT ON accounts FOR EACH ROW WHEN (NEW.previous_account IS NOT NULL) EXECUTE FUNCTION refuse_next_phase();
    `);
    try {
      await a.quote('USDJPY', 152, 152).catch(() => undefined);
      const still = await a.account(org, n);
      expect(still.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
      expect(await a.events(n, 'account.passed')).toHaveLength(0);
      expect(await count('SELECT count(*) AS n FROM positions WHERE account_number = :n AND status = :s', { n, s: 'open' })).toBe(1);
    } finally {
      await h.sql.query('DROP TRIGGER refuse_next_phase ON accounts; DROP FUNCTION refuse_next_phase();');
    }
    // Once provisioning works again, the next mark passes it and provisions phase 2.
    await a.quote('USDJPY', 152.1, 152.1);
    const passed = await a.account(org, n);
    expect(passed.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    expect(passed.nextAccount).toBeDefined();
  });
});

async function failure(p: Promise<unknown>): Promise<{ code?: string; message?: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message?: string };
  }
  throw new Error('expected a failure');
}

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
