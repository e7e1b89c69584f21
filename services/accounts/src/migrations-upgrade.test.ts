/**
 * The trading migrations moved out of the core's list and were renumbered. A database created
 * before that recorded them as 1001-1003; starting the service on it must apply nothing, keep
 * what is recorded, and leave a schema identical to a fresh one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServiceClient, migrate, Mode, openDatabase, QueryTypes, type Migration, type Sequelize } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { PROGRAMS } from './domain/programs';
import { MIGRATIONS, SCHEMA, start } from './main';

/** What schema_migrations holds in a database created before the trading module had its own list. */
const NAMES_BEFORE_THE_MOVE = ['0001-core', '0002-provisioning-and-logins', '1001-trading', '1002-trading-stats', '1003-daily-balances'];

/** The migrations as they were then: the same statements, in the same order, under the old names. */
function migrationsBeforeTheMove(): Migration[] {
  return MIGRATIONS.map((m) => ({ name: m.formerNames?.[0] ?? m.name, up: m.up })).filter((m) => NAMES_BEFORE_THE_MOVE.includes(m.name));
}

/** Migrations written after the move, which an upgraded database applies like any new one. */
const ADDED_SINCE = MIGRATIONS.filter((m) => !NAMES_BEFORE_THE_MOVE.includes(m.name) && !m.formerNames?.some((f) => NAMES_BEFORE_THE_MOVE.includes(f))).map(
  (m) => m.name,
);
const NAMES_AFTER_UPGRADE = [...NAMES_BEFORE_THE_MOVE, ...ADDED_SINCE].sort();

async function recordedNames(sequelize: Sequelize): Promise<string[]> {
  const rows = await sequelize.query<{ name: string }>(`SELECT name FROM ${SCHEMA}.schema_migrations ORDER BY name`, { type: QueryTypes.SELECT });
  return rows.map((r) => r.name);
}

/** Tables, columns (type, default, nullability) and index definitions of the service's schema. */
async function schemaOf(sequelize: Sequelize): Promise<string[]> {
  const columns = await sequelize.query<{ d: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS d
       FROM information_schema.columns WHERE table_schema = :schema AND table_name <> 'schema_migrations'`,
    { replacements: { schema: SCHEMA }, type: QueryTypes.SELECT },
  );
  const indexes = await sequelize.query<{ d: string }>(`SELECT indexdef AS d FROM pg_indexes WHERE schemaname = :schema AND tablename <> 'schema_migrations'`, {
    replacements: { schema: SCHEMA },
    type: QueryTypes.SELECT,
  });
  return [...columns, ...indexes].map((r) => r.d).sort();
}

describe('a database created before the trading migrations moved', () => {
  let old: TestDatabase;
  let fresh: TestDatabase;
  let oldSql: Sequelize;
  let freshSql: Sequelize;

  beforeAll(async () => {
    [old, fresh] = await Promise.all([createTestDatabase('pd_upgrade_old'), createTestDatabase('pd_upgrade_new')]);
    oldSql = openDatabase({ url: old.url, schema: SCHEMA, poolMax: 3 });
    freshSql = openDatabase({ url: fresh.url, schema: SCHEMA, poolMax: 3 });
    await migrate(oldSql, SCHEMA, migrationsBeforeTheMove());
  });

  afterAll(async () => {
    await Promise.all([oldSql.close(), freshSql.close()]);
    await Promise.all([old.drop(), fresh.drop()]);
  });

  it('was recorded under the old names', async () => {
    expect(await recordedNames(oldSql)).toEqual(NAMES_BEFORE_THE_MOVE);
  });

  it('applies only the migrations added since on upgrade, and keeps the old names recorded', async () => {
    expect(await migrate(oldSql, SCHEMA, MIGRATIONS)).toEqual(ADDED_SINCE);
    expect(await recordedNames(oldSql)).toEqual(NAMES_AFTER_UPGRADE);
  });

  it('has the schema a fresh database gets, which records the new names', async () => {
    const applied = await migrate(freshSql, SCHEMA, MIGRATIONS);
    expect(applied).toEqual(MIGRATIONS.map((m) => m.name));
    expect(applied).toEqual(expect.arrayContaining(['trading-0001-positions-deals-flags', 'trading-0002-stats', 'trading-0003-daily-balances']));
    expect(await schemaOf(oldSql)).toEqual(await schemaOf(freshSql));
  });

  it('starts the service, which trades on it', async () => {
    const service = await start({
      DATABASE_URL: old.url,
      ACCOUNTS_GRPC_PORT: '0',
      AUTH_GRPC_ADDRESS: '127.0.0.1:1',
      CURSOR_SECRET: randomBytes(16).toString('hex'),
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
    });
    const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 15_000);
    try {
      const org = randomUUID();
      const [row] = await oldSql.query<{ number: string }>(
        `INSERT INTO accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
         VALUES (:org, 'standard', :terms::jsonb, 100000, 100000, 100000, 100000, 'not-a-secret') RETURNING number`,
        { replacements: { org, terms: JSON.stringify(PROGRAMS.standard) }, type: QueryTypes.SELECT },
      );
      await trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1002 } });
      const { position } = await trading.call.placeOrder({
        organizationId: org,
        mode: Mode.MODE_LIVE,
        number: row.number,
        symbol: 'EURUSD',
        side: tradingv1.Side.SIDE_BUY,
        volume: 1,
        type: tradingv1.OrderType.ORDER_TYPE_MARKET,
      });
      expect(position).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_OPEN, openPrice: 1.1002 });
      expect(await recordedNames(oldSql)).toEqual(NAMES_AFTER_UPGRADE);
    } finally {
      trading.close();
      await service.stop();
    }
  });
});

/**
 * The programs' trading migration was numbered trading-0005 on the branch that introduced it, next
 * to the engine leases' trading-0005; it is trading-0006 now. A database that recorded the old name
 * (without the leases) gets only the leases, and keeps its record.
 */
describe('a database that recorded the programs migration under its first number', () => {
  const OLD_NAME = 'trading-0005-attempts-payouts-warnings';
  let db: TestDatabase;
  let sql: Sequelize;

  beforeAll(async () => {
    db = await createTestDatabase('pd_upgrade_programs');
    sql = openDatabase({ url: db.url, schema: SCHEMA, poolMax: 3 });
  });

  afterAll(async () => {
    await sql.close();
    await db.drop();
  });

  it('applies the engine leases only', async () => {
    const before = MIGRATIONS.filter((m) => m.name !== 'trading-0005-engine-leases').map((m) =>
      m.formerNames?.includes(OLD_NAME) ? { name: OLD_NAME, up: m.up } : m,
    );
    expect(before.map((m) => m.name)).toContain(OLD_NAME);
    await migrate(sql, SCHEMA, before);
    expect(await migrate(sql, SCHEMA, MIGRATIONS)).toEqual(['trading-0005-engine-leases']);
    expect(await recordedNames(sql)).toContain(OLD_NAME);
    expect(await recordedNames(sql)).not.toContain('trading-0006-attempts-payouts-warnings');
  });
});
