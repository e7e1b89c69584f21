import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { createServiceClient, openDatabase, QueryTypes, type Sequelize, type ServiceClient } from '@propdesk/kit';
import { createTestDatabase, spawnService, stopProcess, waitUntil, type SpawnedService, type TestDatabase } from '@propdesk/kit/testing';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { SCHEMA } from '../main';
import { startAuthDouble, type AuthDouble } from '../test/auth-double';
import { at, TEST } from '../test/clock-helpers';
import { phase } from '../test/lifecycle-helpers';

/**
 * A crash in the middle of an advance (SPEC 13) loses nothing and applies nothing twice. The
 * accounts service runs as a real process (services/accounts/dist/main.js, built by `tsc -b`);
 * it is SIGKILLed while a step of the walk is half applied (its trading day's start recorded, a
 * warning sent, its weekend flags blocked behind a row this test holds), then started again: the
 * new process takes the walk over once the dead one's lease expired and resumes it from the last
 * committed step. Every day start, flag, warning, breach and test_clock.ready exists once.
 */
const MAIN_JS = path.resolve(__dirname, '../../dist/main.js');
const THURSDAY = at('2025-01-09T10:00:00.000Z');
const FRIDAY = at('2025-01-10T00:00:00.000Z');
const SATURDAY = at('2025-01-11T00:00:00.000Z');
const TARGET = at('2025-01-16T10:00:00.000Z');

let db: TestDatabase;
let auth: AuthDouble;
let sql: Sequelize;
let service: SpawnedService | undefined;
let accounts: ServiceClient<accountsv1.AccountsServiceClient>;
let trading: ServiceClient<tradingv1.TradingServiceClient>;
const org = randomUUID();
const scope = { organizationId: org, mode: TEST };

async function startService(): Promise<void> {
  service = await spawnService(MAIN_JS, {
    env: {
      DATABASE_URL: db.url,
      ACCOUNTS_GRPC_PORT: '0',
      AUTH_GRPC_ADDRESS: auth.address,
      CURSOR_SECRET: 'accounts-crash-cursor-secret',
      // Suites run in parallel against one PostgreSQL: a small pool keeps them under its max_connections.
      DATABASE_POOL_MAX: '8',
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    },
    listening: 'accounts service listening',
  });
  accounts = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, service.address, 15_000);
  trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 15_000);
}

function closeClients(): void {
  accounts?.close();
  trading?.close();
}

async function count(query: string, replacements: Record<string, unknown> = {}): Promise<number> {
  const [row] = await sql.query<{ n: string }>(query, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
}

beforeAll(async () => {
  db = await createTestDatabase('pd_clock_crash');
  auth = await startAuthDouble();
  await startService();
  sql = openDatabase({ url: db.url, schema: SCHEMA, poolMax: 3 });
}, 60_000);

afterAll(async () => {
  closeClients();
  if (service) await stopProcess(service.child);
  await sql?.close();
  await auth?.stop();
  await db?.drop();
});

it('a walk killed halfway through a step resumes in a new process and applies every step once', async () => {
  await trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001 } });
  await accounts.call.createProgram({
    ...scope,
    program: { name: 'eod-floor', initial_balance: 100000, phases: [phase('Evaluation', { profit_target_pct: 50, max_daily_loss_pct: 50, max_total_loss_pct: 10, total_loss_mode: 'trailing_eod' })] },
  });
  await accounts.call.createProgram({
    ...scope,
    program: { name: 'warned', initial_balance: 100000, phases: [phase('Evaluation', { warning_at_pct: 80, flag_weekend_holding: true })] },
  });
  const { testClock } = await accounts.call.createTestClock({ ...scope, name: 'crash', frozenTime: THURSDAY });
  const clockId = testClock!.id;
  const provision = async (count: number, program = '') =>
    (await accounts.call.createAccounts({ ...scope, count, program, initialBalance: 0, testClockId: clockId })).accounts.map((a) => a.number);
  const order = (number: string, volume: number) =>
    trading.call.placeOrder({ ...scope, number, symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, type: tradingv1.OrderType.ORDER_TYPE_MARKET, volume });
  const quote = (bid: number, ask: number) => trading.call.publishTestClockQuote({ ...scope, testClockId: clockId, quote: { symbol: 'EURUSD', bid, ask } });

  // Holders: one lot each, held through the weekend.
  const holders = await provision(12);
  for (const n of holders) await order(n, 1);
  // Floor: 10,000 closed on Thursday (110,000), then 30 lots bought at 1.1102.
  const [floor] = await provision(1, 'eod-floor');
  const profit = (await order(floor, 10)).position!;
  await quote(1.1101, 1.1102);
  await trading.call.closePosition({ ...scope, number: floor, positionId: profit.id });
  await order(floor, 15);
  await order(floor, 15);
  // Warned: 10 lots bought at 1.1102.
  const [warned] = await provision(1, 'warned');
  await order(warned, 10);
  // At 1.1057: warned is 4,500 down (95,500: past the daily warning level of 96,000, above the 95,000
  // limit), warned once a day; floor is 13,500 down (96,500: above Thursday's floor of 90,000, below
  // Friday's of 100,000, which follows Thursday's end-of-day balance).
  await quote(1.1057, 1.1058);

  // A flag row of the first holder's position, uncommitted: Saturday's step blocks on it once its day start is applied.
  const { positions } = await trading.call.listPositions({ ...scope, number: holders[0], pageSize: 0, pageToken: '', status: 0 });
  const blocker = await sql.transaction();
  await sql.query(
    `INSERT INTO flags (account_number, organization_id, rule, action, reason, evidence, dedupe_key, created_at)
     VALUES (:n, :org, 'weekend_holding', 'flag', 'held by the test', '{}'::jsonb, :key, now())`,
    { replacements: { n: holders[0], org, key: `weekend_holding:${positions[0].id}` }, transaction: blocker },
  );

  const { testClock: advancing } = await accounts.call.advanceTestClock({ ...scope, id: clockId, frozenTime: TARGET });
  expect(advancing?.status).toBe(accountsv1.TestClockStatus.TEST_CLOCK_STATUS_ADVANCING);
  await waitUntil(
    () => count(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO flags%'`),
    { what: "Saturday's step blocked in its weekend flags", timeoutMs: 30_000 },
  );
  // Friday's step committed; Saturday's is half applied, uncommitted.
  const [progress] = await sql.query<{ frozen_time: Date; status: string }>('SELECT frozen_time, status FROM test_clocks WHERE id = :clockId', {
    replacements: { clockId },
    type: QueryTypes.SELECT,
  });
  expect(progress).toEqual({ frozen_time: FRIDAY, status: 'advancing' });
  expect(await count(`SELECT count(*) AS n FROM events WHERE type = 'account.breached' AND (data->>'account') = :floor`, { floor })).toBe(1);

  closeClients();
  await stopProcess(service!.child, 'SIGKILL');
  service = undefined;
  await blocker.rollback();
  // Nothing of Saturday's step survived the kill.
  expect(await count(`SELECT count(*) AS n FROM account_days WHERE day = '2025-01-11'`)).toBe(0);

  await startService();
  await waitUntil(
    async () => (await accounts.call.getTestClock({ ...scope, id: clockId })).testClock?.status === accountsv1.TestClockStatus.TEST_CLOCK_STATUS_READY,
    { what: 'the walk resumed and finished', timeoutMs: 60_000 },
  );
  expect((await accounts.call.getTestClock({ ...scope, id: clockId })).testClock?.frozenTime).toEqual(TARGET);

  // Every day from Thursday to the target started once for each account holding positions.
  const perDay = await sql.query<{ day: string; n: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, count(*) AS n FROM account_days WHERE account_number IN (:numbers) GROUP BY day ORDER BY day`,
    { replacements: { numbers: [...holders, warned] }, type: QueryTypes.SELECT },
  );
  expect(perDay.map((r) => [r.day, Number(r.n)])).toEqual(Array.from({ length: 8 }, (_v, i) => [`2025-01-${String(9 + i).padStart(2, '0')}`, 13]));
  // One weekend flag and one account.flagged per position, at Saturday's start.
  expect(await count(`SELECT count(*) AS n FROM flags WHERE rule = 'weekend_holding' AND account_number IN (:numbers)`, { numbers: holders })).toBe(12);
  const flagged = await sql.query<{ created_at: Date; n: string }>(
    `SELECT created_at, count(*) AS n FROM events WHERE type = 'account.flagged' AND organization_id = :org GROUP BY created_at`,
    { replacements: { org }, type: QueryTypes.SELECT },
  );
  expect(flagged.map((r) => [r.created_at, Number(r.n)])).toEqual([[SATURDAY, 13]]);
  // One daily warning per day of the walk for the warned account, Saturday's included.
  const warnings = await sql.query<{ created_at: Date }>(
    `SELECT created_at FROM events WHERE type = 'account.warning' AND (data->>'account') = :warned AND data->>'rule' = 'max_daily_loss' ORDER BY position`,
    { replacements: { warned }, type: QueryTypes.SELECT },
  );
  expect(warnings.map((w) => w.created_at.toISOString().slice(0, 10))).toEqual(['2025-01-09', ...Array.from({ length: 7 }, (_v, i) => `2025-01-${String(10 + i).padStart(2, '0')}`)]);
  expect(await count(`SELECT count(*) AS n FROM events WHERE type = 'account.breached' AND (data->>'account') = :floor`, { floor })).toBe(1);
  expect(await count(`SELECT count(*) AS n FROM events WHERE type = 'test_clock.ready' AND data->>'id' = :clockId`, { clockId })).toBe(1);
}, 120_000);
