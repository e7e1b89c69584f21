import { createServiceClient, Mode, type ServiceClient } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { start, type StartedAccountsService } from '../main';
import { startHarness, type Harness } from '../test/harness';
import { phase, threeStep, lifecycleHelpers } from '../test/lifecycle-helpers';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * SPEC 10's lifecycle against the real service: progression to the next phase in the pass's
 * transaction (once, whichever replica passes it; rolled back with the pass when it fails).
 */
let h: Harness;
let second: StartedAccountsService;
let secondTrading: ServiceClient<tradingv1.TradingServiceClient>;
let secondApi: ServiceClient<accountsv1.AccountsServiceClient>;

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

const { count, eventTypes, lastPosition, assignedAccount } = lifecycleHelpers(() => h);

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
    // Both replicas have picked up the positions (each on its next tick).
    await Promise.all([h.service.engine.caughtUp(), second.engine.caughtUp()]);
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
