import { Sequelize, QueryTypes, type Transaction } from 'sequelize';
import { Umzug } from 'umzug';
import type { Logger } from './logger';

export { Sequelize, QueryTypes };
export type { Transaction };

export interface DatabaseOptions {
  url: string;
  /** The service's own schema; its tables live there and nowhere else. */
  schema: string;
  poolMax?: number;
  /** Connections kept open once opened, never closed for being idle (default 0). */
  poolMin?: number;
  /** Names this pool's connections apart from the service's other pools (application_name propdesk-<schema>-<name>). */
  name?: string;
  logger?: Logger;
}

/** A sequelize instance whose connections use the service schema as search_path. */
export function openDatabase(options: DatabaseOptions): Sequelize {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error(`bad schema name ${options.schema}`);
  return new Sequelize(options.url, {
    dialect: 'postgres',
    logging: false,
    define: { schema: options.schema, underscored: true },
    pool: { max: options.poolMax ?? 10, min: options.poolMin ?? 0, idle: 10_000, acquire: 10_000 },
    dialectOptions: {
      // JIT off: PostgreSQL compiles a statement whose estimated cost passes jit_above_cost, which
      // pays off for long analytic queries and never for these short ones. A list page of an
      // organization with a million accounts (its LIMIT a parameter, so estimated at a tenth of
      // them) was compiled at every execution: 320-410 ms for a statement that runs in 1-6 ms.
      options: `-c search_path=${options.schema},public -c jit=off`,
      application_name: `propdesk-${options.schema}${options.name ? `-${options.name}` : ''}`,
      statement_timeout: 30_000,
    },
  });
}

export interface MigrationContext {
  sequelize: Sequelize;
  schema: string;
  /** Runs raw SQL (statements may be separated by semicolons). */
  sql(statement: string): Promise<void>;
}

export interface Migration {
  name: string;
  /**
   * Names this migration was recorded under before it was renamed (moved or renumbered): a
   * database that recorded one of them has it applied, and it does not run again.
   */
  formerNames?: readonly string[];
  up(ctx: MigrationContext): Promise<void>;
}

/**
 * Creates the schema and applies pending migrations in order, under an advisory lock so that
 * replicas starting at once do not race. The lock is held by a transaction on one connection
 * while the migrations run on others.
 */
export async function migrate(sequelize: Sequelize, schema: string, migrations: Migration[], logger?: Logger): Promise<string[]> {
  await sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const ctx: MigrationContext = {
    sequelize,
    schema,
    sql: async (statement) => {
      await sequelize.query(statement);
    },
  };
  return sequelize.transaction(async (lockTx) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', {
      replacements: { key: `propdesk-migrations-${schema}` },
      transaction: lockTx,
    });
    await sequelize.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const umzug = new Umzug<MigrationContext>({
      migrations: migrations.map((m) => ({ name: m.name, up: ({ context }) => m.up(context) })),
      context: ctx,
      storage: {
        async executed() {
          const rows = await sequelize.query<{ name: string }>(`SELECT name FROM "${schema}".schema_migrations ORDER BY name`, {
            type: QueryTypes.SELECT,
          });
          // Read-side only: the recorded former names stay, so a replica still running the code
          // from before the rename also finds its migrations applied.
          const recorded = new Set(rows.map((r) => r.name));
          const renamed = migrations.filter((m) => !recorded.has(m.name) && m.formerNames?.some((former) => recorded.has(former)));
          return [...recorded, ...renamed.map((m) => m.name)];
        },
        async logMigration({ name }) {
          await sequelize.query(`INSERT INTO "${schema}".schema_migrations (name) VALUES (:name)`, { replacements: { name } });
        },
        async unlogMigration({ name }) {
          await sequelize.query(`DELETE FROM "${schema}".schema_migrations WHERE name = :name`, { replacements: { name } });
        },
      },
      logger: undefined,
    });
    const applied = await umzug.up();
    if (applied.length > 0) logger?.info({ schema, migrations: applied.map((m) => m.name) }, 'migrations applied');
    return applied.map((m) => m.name);
  });
}
