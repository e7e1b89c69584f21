/**
 * The trading engine rewrites every live account's marked equity over and over (writeMarkedEquity,
 * a few hundred rows per statement). Those updates must stay on the row's own page (heap-only
 * tuples): an update that moves the row inserts into every index of the accounts table, which is
 * most of what such a write costs the database.
 */
import { createTestDatabase, migrate, openDatabase, QueryTypes, type Sequelize, type TestDatabase } from '@propdesk/kit';
import { writeMarkedEquity } from './account-money';
import { coreMigrations } from './migrations';

let db: TestDatabase;
let sequelize: Sequelize;

beforeAll(async () => {
  db = await createTestDatabase();
  const migrating = openDatabase({ url: db.url, schema: 'accounts' });
  await migrate(migrating, 'accounts', coreMigrations);
  await migrating.close();
  // One connection: the statistics read below are the ones this connection flushed.
  sequelize = openDatabase({ url: db.url, schema: 'accounts', poolMax: 1 });
});

afterAll(async () => {
  await sequelize?.close();
  await db?.drop();
});

async function updates(): Promise<{ all: number; onPage: number }> {
  await sequelize.query('SELECT pg_stat_force_next_flush()');
  const [row] = await sequelize.query<{ all: string; on_page: string }>(
    "SELECT n_tup_upd AS all, n_tup_hot_upd AS on_page FROM pg_stat_user_tables WHERE relid = 'accounts.accounts'::regclass",
    { type: QueryTypes.SELECT },
  );
  return { all: Number(row.all), onPage: Number(row.on_page) };
}

it("keeps the engine's equity writes on each account's own page, touching no index", async () => {
  const [{ first, last }] = await sequelize.query<{ first: string; last: string }>(
    `WITH added AS (
       INSERT INTO accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
       SELECT gen_random_uuid(), 'standard', '{"max_daily_loss_pct": 5, "max_total_loss_pct": 10, "profit_target_pct": 8}'::jsonb, 100000, 100000, 100000, 100000, 'sealed'
         FROM generate_series(1, 5000) RETURNING number)
     SELECT min(number) AS first, max(number) AS last FROM added`,
    { type: QueryTypes.SELECT },
  );
  const numbers = Array.from({ length: Number(last) - Number(first) + 1 }, (_, i) => Number(first) + i);
  // Rounds of marks as the engine writes them: every account, 250 to a statement, each round after the last committed.
  const rounds = async (from: number, to: number) => {
    for (let round = from; round <= to; round++) {
      for (let i = 0; i < numbers.length; i += 250) {
        const marks = numbers.slice(i, i + 250).map((number) => ({ number, equity: 100_000 - round * 10 - (number % 7), peakEquity: 100_000 }));
        await writeMarkedEquity(sequelize, marks);
      }
    }
  };
  // The first rounds move the rows that found no room on their page; then the table is as it stays.
  await rounds(1, 4);
  const before = await updates();
  await rounds(5, 8);
  const after = await updates();
  expect(after.all - before.all).toBe(4 * numbers.length);
  expect((after.onPage - before.onPage) / (after.all - before.all)).toBeGreaterThan(0.9);
});
