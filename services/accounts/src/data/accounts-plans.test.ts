/**
 * Keyset pages and claims must cost the same for every organization and mode. With two
 * organizations laid out as in production — one whose accounts come after another's many
 * thousands in the global number order, and a handful of test accounts after those — the list and
 * claim statements must be served by the per-organization indexes (organization_id, livemode, ...),
 * never by a walk of the primary key, and a test page must not read through the live partition
 * beside it. Checked on the exact statements the repository runs, with custom and generic plans
 * (prepared statements switch to generic plans after a few executions).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openDatabase, type Sequelize, type TenantScope } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { coreMigrations } from './migrations';
import { listAccountsJsonStatement, listAccountsStatement, type AccountFilter } from './account-listing';
import { NEXT_CLAIMABLE_SQL } from './accounts';

let db: TestDatabase;
let sequelize: Sequelize;
let pg: Client;
const earlyOrg = randomUUID();
const lateOrg = randomUUID();
const early: TenantScope = { organizationId: earlyOrg, livemode: true };
const late: TenantScope = { organizationId: lateOrg, livemode: true };
/** Ten test accounts of the early organization, numbered after its 60,000 live ones. */
const earlyTest: TenantScope = { organizationId: earlyOrg, livemode: false };

function literal(value: unknown): string {
  // an untyped array literal, so that the statement's own casts decide the element type
  if (Array.isArray(value)) return `'{${value.map(String).join(',')}}'`;
  return typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function indexesUsed(node: PlanNode): string[] {
  return [...(node['Index Name'] ? [node['Index Name']] : []), ...(node.Plans ?? []).flatMap(indexesUsed)];
}

async function explain(text: string, values: unknown[], mode: 'force_custom_plan' | 'force_generic_plan', options = 'FORMAT JSON'): Promise<PlanNode & { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number }> {
  await pg.query(`SET plan_cache_mode = ${mode}`);
  await pg.query(`PREPARE probe AS ${text}`);
  try {
    const res = await pg.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (${options}) EXECUTE probe(${values.map(literal).join(', ')})`);
    return res.rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await pg.query('DEALLOCATE probe');
  }
}

async function plan(text: string, values: unknown[], mode: 'force_custom_plan' | 'force_generic_plan'): Promise<string[]> {
  return indexesUsed(await explain(text, values, mode));
}

/** Index and table pages the statement touched when it ran. */
async function buffersRead(text: string, values: unknown[], mode: 'force_custom_plan' | 'force_generic_plan'): Promise<number> {
  const node = await explain(text, values, mode, 'ANALYZE, BUFFERS, FORMAT JSON');
  return (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
}

beforeAll(async () => {
  db = await createTestDatabase();
  sequelize = openDatabase({ url: db.url, schema: 'accounts' });
  await migrate(sequelize, 'accounts', coreMigrations);
  pg = new Client({ connectionString: db.url, options: '-c search_path=accounts' });
  await pg.connect();
  const insert = (scope: TenantScope, count: number) =>
    pg.query(
      `INSERT INTO accounts (organization_id, livemode, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
       SELECT $1, $3, 'standard', '{}'::jsonb, 100000, 100000, 100000, 100000, 'x' FROM generate_series(1, $2::int)`,
      [scope.organizationId, count, scope.livemode],
    );
  await insert(early, 60_000);
  await insert(late, 2_000);
  await insert(earlyTest, 10);
  await pg.query(`UPDATE accounts SET status = 'breached' WHERE organization_id = $1 AND number % 500 = 0`, [lateOrg]);
  await pg.query('ANALYZE accounts');
});

afterAll(async () => {
  await pg?.end();
  await sequelize?.close();
  await db?.drop();
});

const filters: Array<[string, AccountFilter]> = [
  ['no filter', {}],
  ['status', { status: 'breached' }],
  ['unassigned', { assigned: false }],
  ['assigned', { assigned: true }],
  ['trader', { traderId: randomUUID() }],
  ['trader and status', { traderId: randomUUID(), status: 'active' }],
];

describe.each(['force_custom_plan', 'force_generic_plan'] as const)('with %s', (mode) => {
  it.each(filters)("serves a later organization's first page (%s) from a per-organization index", async (_name, filter) => {
    const statement = listAccountsStatement(late, filter, 0, 51);
    const used = await plan(statement.text, statement.values, mode);
    expect(used.length).toBeGreaterThan(0);
    expect(used).not.toContain('accounts_pkey');
    for (const index of used) expect(index).toMatch(/^accounts_(org|claimable)/);
  });

  it.each(filters)('serves every page of a batch (%s) from a per-organization index', async (_name, filter) => {
    const statement = listAccountsJsonStatement([
      { scope: late, filter, after: 0, shown: 50 },
      { scope: early, filter, after: 59_000, shown: 50 },
      { scope: late, filter, after: 1_000, shown: 200 },
      { scope: earlyTest, filter, after: 0, shown: 50 },
    ]);
    const used = await plan(statement.text, statement.values, mode);
    expect(used.length).toBeGreaterThan(0);
    expect(used).not.toContain('accounts_pkey');
    for (const index of used) expect(index).toMatch(/^accounts_(org|claimable)/);
  });

  it('claims through the claimable index, never walking the primary key', async () => {
    const used = await plan(NEXT_CLAIMABLE_SQL.replaceAll('$org', '$1').replaceAll('$livemode', '$2'), [lateOrg, 'true'], mode);
    expect(used).toEqual(['accounts_claimable']);
  });

  it.each(filters)('serves a test page (%s) of an organization with 60,000 live accounts from its index, without reading through them', async (_name, filter) => {
    const statement = listAccountsStatement(earlyTest, filter, 0, 51);
    const used = await plan(statement.text, statement.values, mode);
    expect(used.length).toBeGreaterThan(0);
    for (const index of used) expect(index).toMatch(/^accounts_(org|claimable)/);
    // The live partition's index alone is about 200 pages: a page that read through it would show.
    expect(await buffersRead(statement.text, statement.values, mode)).toBeLessThan(40);
  });

  it.each(filters)('renders a test page (%s) as JSON without reading through the live partition', async (_name, filter) => {
    const statement = listAccountsJsonStatement([{ scope: earlyTest, filter, after: 0, shown: 50 }]);
    expect(await buffersRead(statement.text, statement.values, mode)).toBeLessThan(40);
  });

  it('claims a test account without reading through the live ones', async () => {
    const text = NEXT_CLAIMABLE_SQL.replaceAll('$org', '$1').replaceAll('$livemode', '$2');
    // An index of the organization's test partition: the claimable one, or (organization_id,
    // livemode, program) when ANALYZE's sample of 30,000 of the 62,010 rows happens to hold none of
    // the 10 test accounts (then both look like one row to the planner; CI met it once). Either
    // reads the test accounts alone, as the pages counted below show.
    const used = await plan(text, [earlyOrg, 'false'], mode);
    expect(used).toHaveLength(1);
    expect(used[0]).toMatch(/^accounts_(claimable|org_)/);
    await pg.query('BEGIN');
    try {
      expect(await buffersRead(text, [earlyOrg, 'false'], mode)).toBeLessThan(40);
    } finally {
      await pg.query('ROLLBACK');
    }
  });
});

it('never JIT-compiles a statement, as PostgreSQL does by default for one it estimates as costly', async () => {
  // With a million accounts in an organization a list page is estimated at millions (its LIMIT is
  // a parameter) and was compiled at every execution, 320-410 ms for 1-6 ms of work (the accounts
  // bench). Here the threshold is brought down to 0 so that this small table shows the same.
  const statement = listAccountsJsonStatement([{ scope: early, filter: {}, after: 30_000, shown: 200 }]);
  const literal = `'${String(statement.values[0]).replace(/'/g, "''")}'`;
  const plan = `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text.replace('$1', literal)}`;
  // The services' connections (the kit's openDatabase): no JIT section in the plan.
  const ours = await sequelize.transaction(async (transaction) => {
    await sequelize.query('SET LOCAL jit_above_cost = 0', { transaction });
    const [rows] = await sequelize.query(plan, { transaction });
    return JSON.stringify(rows);
  });
  expect(ours).toContain('"Execution Time"');
  expect(ours).not.toContain('"JIT"');
  // A connection with the server's defaults compiles it, where the server has JIT at all.
  const { rows } = await pg.query<{ available: boolean }>('SELECT pg_jit_available() AS available');
  if (rows[0].available) {
    await pg.query('SET jit_above_cost = 0');
    try {
      expect(JSON.stringify((await pg.query(plan)).rows)).toContain('"JIT"');
    } finally {
      await pg.query('RESET jit_above_cost');
    }
  }
});

it('runs the list statement on its cached generic plan, not planning every execution again', async () => {
  await pg.query('SET plan_cache_mode = auto');
  for (const [name, filter] of filters) {
    const statementName = `generic_probe_${name.replace(/\W/g, '_')}`;
    for (let i = 0; i < 12; i += 1) {
      // Batches of one and of three pages alternate: the same statement text serves both.
      const pages = Array.from({ length: i % 2 === 0 ? 1 : 3 }, (_v, k) => ({ scope: k === 1 ? early : k === 2 ? earlyTest : late, filter, after: k * 10, shown: 50 }));
      const statement = listAccountsJsonStatement(pages);
      await pg.query({ name: statementName, text: statement.text, values: statement.values });
    }
    const { rows } = await pg.query<{ generic_plans: string; custom_plans: string }>(
      'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1',
      [statementName],
    );
    expect({ name, generic: Number(rows[0].generic_plans) }).toEqual({ name, generic: 12 - Number(rows[0].custom_plans) });
    expect(Number(rows[0].generic_plans)).toBeGreaterThanOrEqual(6);
  }
});

