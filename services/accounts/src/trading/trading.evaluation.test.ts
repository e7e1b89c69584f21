import { createLogger, Mode, QueryTypes } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import type { Harness } from '../test/harness';
import { expectCode, startTradingSuite, type TradingHelpers } from '../test/trading-helpers';
import { upsertEquityMinutes } from './data/equity-minutes';
import { lockAccount } from './core-port';
import { rehearseBreach } from './use-cases/rehearse-breach';

/** The engine's verdicts through TradingService: daily limit, profit target, manual breach, rehearsals, the writer beside a verdict, the quote stream. */
let h: Harness;
let t: TradingHelpers;
let org: string;

beforeAll(async () => ({ h, t, org } = await startTradingSuite()));
afterAll(() => h.close());

describe('evaluation', () => {
  it('equity at the daily limit is kept; below it the account breaches with evidence', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('US30', 39_000, 39_000);
    const p = await t.order(org, n, { symbol: 'US30', volume: 10 });
    await t.quote('US30', 38_500, 38_501);
    expect(await t.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE, equity: 95_000 });

    await t.quote('US30', 38_499, 38_500);
    const account = await t.account(org, n);
    expect(account).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, balance: 94_990, equity: 94_990 });
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '' });
    expect(flags).toEqual([
      expect.objectContaining({
        rule: 'max_daily_loss',
        action: 'breach',
        evidence: expect.objectContaining({ rule: 'max_daily_loss', limit: 95_000, equity: 94_990, balance: 100_000, peak_equity: 100_000, start_of_day_balance: 100_000, time: expect.any(String) }),
      }),
    ]);
    expect(await t.events(n, 'account.breached')).toEqual([
      expect.objectContaining({ account: Number(n), trader_id: null, status: 'breached', reason: expect.stringContaining('max_daily_loss'), equity: 94_990, balance: 94_990, peak_equity: 100_000 }),
    ]);
    expect(await t.events(n, 'position.closed')).toEqual([expect.objectContaining({ position_id: p.id, reason: 'breach', close_price: 38_499, profit: -5010 })]);
    // The limits as they stood when it breached: the day still starts at 100,000, not at the balance left.
    const { analytics } = await h.trading.getAnalytics({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    expect(analytics?.headroom).toMatchObject({ daily_loss_limit: 95_000, daily_loss_remaining: 0, total_loss_limit: 90_000, total_loss_remaining: 4990 });
    await expectCode(t.order(org, n, { symbol: 'US30' }), 'account_breached');
    await expectCode(h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: 'again' }), 'account_breached');
  });

  it('a breach rehearsed to warm a verdict connection leaves no trace: the account, its position, flags, deals and events are as before', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('US30', 39_000, 39_000);
    const p = await t.order(org, n, { symbol: 'US30', volume: 1 });
    const count = async (table: string) =>
      (await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE account_number = :n`, { replacements: { n }, type: QueryTypes.SELECT }))[0].n;
    const before = { account: await t.account(org, n), flags: await count('flags'), deals: await count('deals'), events: await t.events(n, 'position.closed') };
    const quote = { symbol: 'US30', bid: 38_000, ask: 38_001, time: new Date() };
    const ctx = { sequelize: h.sql, logger: createLogger('test', { level: 'silent' }), rolloverHourUtc: 0, now: () => new Date(), quote: () => quote };
    await rehearseBreach(ctx, Number(n));
    // the rehearsal ran the whole breach: a rehearsal of an account that does not exist also just rolls back
    await rehearseBreach(ctx, 999_999_999);
    expect(await t.account(org, n)).toEqual(before.account);
    expect(await count('flags')).toBe(before.flags);
    expect(await count('deals')).toBe(before.deals);
    expect(await t.events(n, 'position.closed')).toEqual(before.events);
    expect(await t.events(n, 'account.breached')).toEqual([]);
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '', status: tradingv1.PositionStatus.POSITION_STATUS_OPEN });
    expect(positions).toEqual([expect.objectContaining({ id: p.id, status: tradingv1.PositionStatus.POSITION_STATUS_OPEN })]);
  });

  it("the equity writer's minute buckets never wait on, nor deadlock with, a verdict holding the account's lock", async () => {
    const [n] = await t.newAccounts(org, 1);
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const bucket = (equity: number) => [{ accountNumber: Number(n), minute, open: equity, high: equity, low: equity, close: equity, balance: 100_000 }];
    await h.sql.transaction(async (tx) => {
      // A verdict: the row lock first, then (below) its own point in the same minute.
      expect(await lockAccount(h.sql, tx, Number(n))).toMatchObject({ number: Number(n) });
      // The writer, outside: its upsert's foreign-key check must not wait for the verdict to end.
      const written = await Promise.race([upsertEquityMinutes(h.sql, bucket(99_000)).then(() => 'written'), new Promise((r) => setTimeout(() => r('waited'), 3000))]);
      expect(written).toBe('written');
      await upsertEquityMinutes(h.sql, bucket(98_000), tx);
    });
    const [row] = await h.sql.query<{ low: string; close: string }>('SELECT low, close FROM equity_minutes WHERE account_number = :n AND minute = :minute', {
      replacements: { n, minute },
      type: QueryTypes.SELECT,
    });
    expect(row).toMatchObject({ low: '98000.00', close: '98000.00' });
  });

  it('a manual breach needs a reason, closes positions, revokes sessions and records rule manual', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('BTCUSD', 65_000, 65_010);
    await t.order(org, n, { symbol: 'BTCUSD', volume: 0.1 });
    const { credentials } = await h.api.getCredentials({ organizationId: org, mode: Mode.MODE_LIVE, number: n });
    const { token } = await h.api.createExecutorSession({ account: n, password: credentials?.password ?? '', clientIp: '127.0.0.1' });
    await h.api.getExecutorSession({ token });
    await expectCode(h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: '' }), 'invalid_request', 'reason');
    await expectCode(h.trading.breachAccount({ organizationId: h.newOrg(), mode: Mode.MODE_LIVE, number: n, reason: 'x' }), 'not_found');
    const { account } = await h.trading.breachAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: n, reason: 'copy trading detected' });
    expect(account).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, balance: 99_999 });
    expect(await t.events(n, 'account.breached')).toEqual([expect.objectContaining({ reason: 'copy trading detected', rule: 'manual', status: 'breached' })]);
    expect(await t.events(n, 'position.closed')).toEqual([expect.objectContaining({ reason: 'breach' })]);
    await expectCode(h.api.getExecutorSession({ token }), 'invalid_session');
  });

  it('reaching the profit target with the minimum trading days passes the account', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.setTerms(n, { minTradingDays: 1 });
    await t.quote('BTCUSD', 65_000, 65_000);
    await t.order(org, n, { symbol: 'BTCUSD', volume: 1 });
    await t.quote('BTCUSD', 74_999, 75_000);
    expect((await t.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
    await t.quote('BTCUSD', 75_000, 75_001);
    expect(await t.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED, balance: 110_000 });
    expect(await t.events(n, 'account.passed')).toEqual([expect.objectContaining({ account: Number(n), status: 'passed', balance: 110_000, trading_days: 1 })]);
    await expectCode(t.order(org, n, { symbol: 'BTCUSD' }), 'account_passed');
  });

  it('concurrent orders and closes on one account never corrupt its balance', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('USDJPY', 150, 150.02);
    const opened = await Promise.all(Array.from({ length: 12 }, () => t.order(org, n, { symbol: 'USDJPY', volume: 1 })));
    await t.quote('USDJPY', 150.5, 150.52);
    await Promise.all(opened.map((p) => h.trading.closePosition({ organizationId: org, mode: Mode.MODE_LIVE, number: n, positionId: p.id })));
    const [sum] = await h.sql.query<{ total: string; n: string }>('SELECT sum(profit) AS total, count(*) AS n FROM deals WHERE account_number = :n', {
      replacements: { n },
      type: QueryTypes.SELECT,
    });
    expect(Number(sum.n)).toBe(12);
    // (150.50 - 150.02) * 100,000 / 150.50 = 318.94 per lot.
    expect(Number(sum.total)).toBeCloseTo(12 * 318.94, 2);
    expect((await t.account(org, n)).balance).toBeCloseTo(100_000 + 12 * 318.94, 2);
  });
});

describe('the quote stream', () => {
  it('counts accepted and rejected quotes and evaluates them', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('EURUSD', 1.1, 1.1);
    await t.order(org, n, { volume: 1, takeProfit: 1.12 });
    const response = await new Promise<tradingv1.StreamQuotesResponse>((resolve, reject) => {
      const stream = h.tradingClient.raw.streamQuotes((err, res) => (err ? reject(err) : resolve(res)));
      stream.write({ quote: { symbol: 'EURUSD', bid: 1.11, ask: 1.1101 } });
      stream.write({ quote: { symbol: 'EURUSD', bid: 1.2, ask: 1.1 } });
      stream.write({ quote: { symbol: 'EURUSD', bid: 1.1201, ask: 1.1202 } });
      stream.end();
    });
    expect(response).toEqual({ accepted: '2', rejected: '1' });
    expect(await t.events(n, 'position.closed')).toEqual([expect.objectContaining({ reason: 'take_profit', profit: 2000 })]);
  });
});
