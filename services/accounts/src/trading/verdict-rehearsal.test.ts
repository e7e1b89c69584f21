import { createLogger, openDatabase, QueryTypes, type Sequelize } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { SCHEMA } from '../main';
import { startHarness, type Harness } from '../test/harness';
import { TradingEngine } from './engine/trading-engine';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * The engine's verdict pool keeps its connections warm: each is rehearsed (a breach rolled back)
 * once the index holds accounts, and a connection the pool reopens after losing one (a restarted
 * database, a terminated backend) is rehearsed again at the next tick, not left for the next
 * breach to warm. Nothing is rehearsed while nothing changed.
 */
let h: Harness;
let verdictDb: Sequelize;
let engine: TradingEngine;
const NAME = 'verdicts-rehearsal-test';
/** How the pool's connections appear in pg_stat_activity (kit's openDatabase). */
const APPLICATION_NAME = `propdesk-${SCHEMA}-${NAME}`;
const CONNECTIONS = 2;

beforeAll(async () => {
  h = await startHarness();
  verdictDb = openDatabase({ url: h.db.url, schema: SCHEMA, name: NAME, poolMax: CONNECTIONS, poolMin: CONNECTIONS });
});

afterAll(async () => {
  await engine?.stop();
  await verdictDb.close();
  await h.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `n` complete ticks of the engine. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await engine.caughtUp();
}

async function rehearsed(): Promise<number> {
  return (await engine.metrics.rehearsals.get()).values[0]?.value ?? 0;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within the time allowed');
    await sleep(50);
  }
}

/** The pool's backends, by pid. */
async function backends(): Promise<number[]> {
  const rows = await h.sql.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = :name AND datname = current_database() ORDER BY pid', {
    replacements: { name: APPLICATION_NAME },
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.pid);
}

it('rehearses each verdict connection once, and again after the pool reopened them, leaving the account as it was', async () => {
  const org = h.newOrg(10);
  const t = tradingHelpers(h, h.sql);
  const [n] = await t.newAccounts(org, 1);
  await t.quote('EURUSD', 1.1, 1.1001);
  await t.order(org, n, { volume: 1 });
  const before = await t.account(org, n);

  engine = new TradingEngine({
    sequelize: h.sql,
    logger: createLogger('test', { level: 'silent' }),
    rolloverHourUtc: 0,
    tickMs: 100,
    verdicts: { sequelize: verdictDb, connections: CONNECTIONS },
  });
  await engine.ready();
  expect(await rehearsed()).toBe(CONNECTIONS);
  const first = await backends();
  expect(first).toHaveLength(CONNECTIONS);

  // Ticks with nothing changed rehearse nothing.
  await ticks(5);
  expect(await rehearsed()).toBe(CONNECTIONS);

  // The database drops both backends: the pool reopens them, and the next tick warms the new ones.
  await h.sql.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name AND datname = current_database()', {
    replacements: { name: APPLICATION_NAME },
  });
  await until(async () => (await rehearsed()) === 2 * CONNECTIONS, 5000);
  const second = await backends();
  expect(second).toHaveLength(CONNECTIONS);
  expect(second.filter((pid) => first.includes(pid))).toEqual([]);

  await ticks(5);
  expect(await rehearsed()).toBe(2 * CONNECTIONS);
  expect(await t.account(org, n)).toEqual(before);
  expect((await t.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
  expect(await t.events(n, 'account.breached')).toEqual([]);
});
