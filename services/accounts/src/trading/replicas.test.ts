import { createLogger, createServiceClient, Mode, QueryTypes, type PromiseClient, type ServiceClient } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { start, type StartedAccountsService } from '../main';
import { startHarness, type Harness } from '../test/harness';
import { fixedClock } from './domain/clock';
import { TradingEngine } from './engine/trading-engine';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * Two accounts-service replicas on one database, quotes arriving at either: every replica
 * evaluates the quotes it receives for every live position of the symbol (whoever opened it),
 * and decisions re-check under the account row lock, so nothing happens twice.
 */
let h: Harness;
let second: StartedAccountsService;
let secondClient: ServiceClient<accountsv1.AccountsServiceClient>;
let secondTrading: ServiceClient<tradingv1.TradingServiceClient>;
/** The second replica's clients. */
let b: { api: PromiseClient<accountsv1.AccountsServiceClient>; trading: PromiseClient<tradingv1.TradingServiceClient> };
let org: string;

/** Both replicas have picked up the positions changed elsewhere (each on its next tick). */
function bothCaughtUp(): Promise<unknown> {
  return Promise.all([h.service.engine.caughtUp(), second.engine.caughtUp()]);
}

beforeAll(async () => {
  h = await startHarness();
  second = await start(h.env);
  secondClient = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, second.address, 15_000);
  secondTrading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, second.address, 15_000);
  b = { api: secondClient.call, trading: secondTrading.call };
  org = h.newOrg(1000);
});

afterAll(async () => {
  secondClient.close();
  secondTrading.close();
  await second.stop();
  await h.close();
});

async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
  const [row] = await h.sql.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
}

it('a position opened on one replica is breached by a quote that reaches the other', async () => {
  const a = tradingHelpers(h, h.sql);
  const [n] = await a.newAccounts(org, 1);
  await a.quote('EURUSD', 1.1, 1.1);
  await a.order(org, n, { volume: 10 });
  // The other replica picks up positions changed elsewhere on its next tick (250 ms).
  await bothCaughtUp();
  await b.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.0949, ask: 1.095 } });
  expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
  expect(await a.events(n, 'account.breached')).toHaveLength(1);
});

it('the same breaching quote on both replicas at once breaches each account once and closes each position once', async () => {
  const a = tradingHelpers(h, h.sql);
  const viaB = tradingHelpers(b, h.sql);
  const numbers = await a.newAccounts(org, 6);
  await a.quote('GBPUSD', 1.27, 1.27);
  for (const [i, n] of numbers.entries()) {
    const side = i % 2 === 0 ? a : viaB;
    await side.order(org, n, { symbol: 'GBPUSD', volume: 5 });
    await side.order(org, n, { symbol: 'GBPUSD', volume: 5 });
  }
  await bothCaughtUp();
  await Promise.all([
    h.trading.publishQuote({ quote: { symbol: 'GBPUSD', bid: 1.2649, ask: 1.265 } }),
    b.trading.publishQuote({ quote: { symbol: 'GBPUSD', bid: 1.2649, ask: 1.265 } }),
  ]);
  for (const n of numbers) {
    expect(await a.events(n, 'account.breached')).toHaveLength(1);
    expect(await a.events(n, 'position.closed')).toHaveLength(2);
    expect(await count('SELECT count(*) AS n FROM deals WHERE account_number = :n', { n })).toBe(2);
    // 10 lots, 0.0051 below the 1.27 entry: -5,100.
    expect(await a.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, balance: 94_900 });
  }
});

it('a resting order triggered on both replicas fills once', async () => {
  const a = tradingHelpers(h, h.sql);
  const [n] = await a.newAccounts(org, 1);
  await a.quote('XAUUSD', 2350, 2350.3);
  const pending = await a.order(org, n, { symbol: 'XAUUSD', type: tradingv1.OrderType.ORDER_TYPE_STOP, price: 2360, volume: 0.2 });
  await bothCaughtUp();
  await Promise.all([
    h.trading.publishQuote({ quote: { symbol: 'XAUUSD', bid: 2360, ask: 2360.3 } }),
    b.trading.publishQuote({ quote: { symbol: 'XAUUSD', bid: 2360, ask: 2360.3 } }),
  ]);
  expect(await a.events(n, 'position.opened')).toEqual([expect.objectContaining({ position_id: pending.id, open_price: 2360 })]);
});

it('a position held over the weekend is flagged once, and trading continues', async () => {
  const a = tradingHelpers(h, h.sql);
  const [n] = await a.newAccounts(org, 1);
  await a.quote('US30', 39_000, 39_001);
  const p = await a.order(org, n, { symbol: 'US30', volume: 1 });
  await h.sql.query("UPDATE positions SET opened_at = '2026-03-13T15:00:00Z' WHERE id = :id", { replacements: { id: p.id } });
  // A third engine whose clock reads Monday after that weekend.
  const engine = new TradingEngine({
    sequelize: h.sql,
    logger: createLogger('test', { level: 'silent' }),
    rolloverHourUtc: 0,
    clock: fixedClock(new Date('2026-03-16T09:00:00Z')),
  });
  try {
    await engine.publishQuote({ symbol: 'US30', bid: 39_010, ask: 39_011, time: new Date() });
    await engine.publishQuote({ symbol: 'US30', bid: 39_020, ask: 39_021, time: new Date() });
  } finally {
    await engine.stop();
  }
  const { flags } = await h.trading.listFlags({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '' });
  expect(flags).toEqual([expect.objectContaining({ rule: 'weekend_holding', action: 'flag', evidence: expect.objectContaining({ position_id: p.id }) })]);
  expect(await a.events(n, 'account.flagged')).toEqual([expect.objectContaining({ rule: 'weekend_holding', position_id: p.id })]);
  expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
});
