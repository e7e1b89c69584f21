import type { QueryResultRow } from 'pg';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/**
 * Values for the `$name` parameters of a statement. pg sends them apart from the SQL text, as
 * typed values: nothing is ever spliced into the text, a JS array arrives as a PostgreSQL array
 * (for `= ANY($ids)` and `unnest`), a Buffer as bytea. A parameter PostgreSQL cannot type from
 * its context (`$x IS NULL`) needs a cast: `CAST($x AS text)`.
 */
export type BindValues = Record<string, unknown>;

/** Rows of any statement that returns rows: SELECT, or INSERT/UPDATE/DELETE ... RETURNING. */
export function selectRows<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T[]> {
  return db.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
}

/** The first row, or undefined when there is none. */
export async function selectOne<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T | undefined> {
  const [row] = await selectRows<T>(db, sql, bind, transaction);
  return row;
}

/** A statement whose rows are not needed. */
export async function execute(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<void> {
  await db.query(sql, { bind, transaction });
}

interface PooledPgClient {
  query<R extends QueryResultRow>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

interface ConnectionManager {
  getConnection(options: { type: 'read' | 'write' }): Promise<PooledPgClient>;
  releaseConnection(connection: PooledPgClient): Promise<void>;
}

/**
 * Runs a named prepared statement ($1, $2 ... parameters) on a connection of sequelize's pool:
 * PostgreSQL parses and plans it once per connection, and sequelize's query pipeline (rendering,
 * result shaping) is skipped. For the hottest read paths only, outside transactions; everything
 * else goes through selectRows/execute. `name` must identify `text` (same name, same text).
 */
export async function preparedRows<R extends QueryResultRow>(db: Sequelize, name: string, text: string, values: unknown[]): Promise<R[]> {
  const manager = (db as unknown as { connectionManager: ConnectionManager }).connectionManager;
  const connection = await manager.getConnection({ type: 'read' });
  try {
    const result = await connection.query<R>({ name, text, values });
    return result.rows;
  } finally {
    await manager.releaseConnection(connection);
  }
}

/** NUMERIC and BIGINT arrive as strings: convert at the repository edge. */
export function toNumber(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}

/** A BIGINT as the decimal string proto's int64 carries (forceLong=string); null reads as '0'. */
export function bigintText(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '0' : String(value);
}
