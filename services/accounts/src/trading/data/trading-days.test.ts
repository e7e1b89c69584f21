/**
 * countTradingDays counts the distinct trading days of the account's current attempt by skipping
 * through positions_account_attempt_day: the same figure as a count over every position, read
 * from the index one day at a time (a busy account's verdict no longer reads all its positions).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, migrate, openDatabase, type Sequelize, type TestDatabase } from '@propdesk/kit';
import { MIGRATIONS } from '../../main';
import { countTradingDays, TRADING_DAYS_SQL } from './positions';

let db: TestDatabase;
let sequelize: Sequelize;
let pg: Client;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

beforeAll(async () => {
  db = await createTestDatabase();
  sequelize = openDatabase({ url: db.url, schema: 'accounts' });
  await migrate(sequelize, 'accounts', MIGRATIONS);
  pg = new Client({ connectionString: db.url, options: '-c search_path=accounts' });
  await pg.connect();
  const org = randomUUID();
  await pg.query(
    `INSERT INTO accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     SELECT $1, 'standard', '{}'::jsonb, 100000, 100000, 100000, 100000, 'x' FROM generate_series(1, 3)`,
    [org],
  );
});

afterAll(async () => {
  await pg?.end();
  await sequelize?.close();
  await db?.drop();
});

async function positions(number: number, attempt: number, days: Array<string | null>): Promise<void> {
  await pg.query(`UPDATE accounts SET attempt = $2 WHERE number = $1`, [number, attempt]);
  await pg.query(
    `INSERT INTO positions (id, account_number, organization_id, symbol, side, type, status, volume, trading_day)
     SELECT gen_random_uuid(), $1, a.organization_id, 'EURUSD', 'buy', 'market', 'closed', 1, d::date
       FROM unnest($2::text[]) AS d, accounts a WHERE a.number = $1`,
    [number, days],
  );
}

it('counts the distinct days of the current attempt only, whatever the positions without a day', async () => {
  const [a, b, c] = (await pg.query<{ number: string }>('SELECT number FROM accounts ORDER BY number')).rows.map((r) => Number(r.number));
  await positions(a, 1, ['2026-03-02', '2026-03-02', '2026-03-03', null, '2026-03-09', '2026-03-03']);
  await positions(b, 1, ['2026-01-05', '2026-01-06']);
  await positions(b, 2, ['2026-02-02', null, '2026-02-02']);
  expect(await countTradingDays(sequelize, a)).toBe(3);
  expect(await countTradingDays(sequelize, b)).toBe(1);
  expect(await countTradingDays(sequelize, c)).toBe(0);
  expect(await countTradingDays(sequelize, 999_999_999)).toBe(0);
  // Inside a transaction (a verdict's): the same figure through the prepared-statement path.
  expect(await sequelize.transaction((tx) => countTradingDays(sequelize, a, tx))).toBe(3);
});

it('reads the index, never the table, with a generic plan too', async () => {
  // A busy account: 30,000 positions over 300 days, among the others.
  const [, , c] = (await pg.query<{ number: string }>('SELECT number FROM accounts ORDER BY number')).rows.map((r) => Number(r.number));
  const days = Array.from({ length: 30_000 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + (i % 300))).toISOString().slice(0, 10));
  await positions(c, 1, days);
  await pg.query('ANALYZE positions');
  expect(await countTradingDays(sequelize, c)).toBe(300);
  const text = TRADING_DAYS_SQL.replace(/\$accountNumber/g, '$1');
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    await pg.query(`SET plan_cache_mode = ${mode}`);
    await pg.query(`PREPARE probe(bigint) AS ${text}`);
    try {
      const res = await pg.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE probe(${c})`);
      const all = nodes(res.rows[0]['QUERY PLAN'][0].Plan);
      const onPositions = all.filter((n) => n['Relation Name'] === 'positions');
      expect(onPositions.length).toBeGreaterThan(0);
      expect(onPositions.every((n) => n['Index Name'] === 'positions_account_attempt_day')).toBe(true);
      expect(all.some((n) => n['Node Type'] === 'Sort')).toBe(false);
    } finally {
      await pg.query('DEALLOCATE probe');
    }
  }
});
