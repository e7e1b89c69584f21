import type { QueryResultRow } from 'pg';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { compile, together, valuesFor, type BindValues, type Statement } from './statements';
import { holdWrites } from './transaction';

export type { BindValues, Statement } from './statements';

/** Rows of any statement that returns rows: SELECT, or INSERT/UPDATE/DELETE ... RETURNING. */
export function selectRows<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T[]> {
  return (transaction && inTransaction<T>(transaction, sql, bind)) || db.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
}

/** The first row, or undefined when there is none. */
export async function selectOne<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T | undefined> {
  const [row] = await selectRows<T>(db, sql, bind, transaction);
  return row;
}

/** A statement whose rows are not needed. */
export async function execute(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<void> {
  await ((transaction && inTransaction(transaction, sql, bind)) || db.query(sql, { bind, transaction }));
}

/**
 * Independent data-modifying statements in one round trip: each becomes a CTE of a single
 * statement (PostgreSQL runs every data-modifying CTE exactly once, referenced or not), followed
 * by `select`. They see the same snapshot, not each other's effects: none may read what another
 * writes (only a named statement's RETURNING rows), and no two may change the same row.
 */
export async function executeTogether(db: Sequelize, statements: Statement[], transaction?: Transaction, select = 'SELECT 1'): Promise<void> {
  const { sql, bind } = together(statements, select);
  await execute(db, sql, bind, transaction);
}

/** executeTogether whose `select` returns rows (it may read the named statements' RETURNING rows). */
export function selectTogether<T extends object>(db: Sequelize, statements: Statement[], select: string, transaction?: Transaction): Promise<T[]> {
  const { sql, bind } = together(statements, select);
  return selectRows<T>(db, sql, bind, transaction);
}

interface TransactionConnection {
  query<R extends QueryResultRow>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/**
 * A statement inside a transaction, sent straight to the transaction's connection as a named
 * prepared statement: PostgreSQL parses and plans it once per connection, and sequelize's query
 * pipeline (bind rendering, logging, result shaping) is skipped — a verdict or a claim is a
 * dozen such statements, so this is most of their cost. Rows, values and type parsing are the
 * same (the parsers live on the connection); errors are node-postgres' own (SQLSTATE in `code`).
 * undefined when the statement is better left to sequelize: no `$name` parameter (DDL,
 * multi-statement text), a name without a value, a finished transaction (sequelize says so),
 * more distinct texts than MAX_PREPARED_TEXTS.
 */
function inTransaction<T extends object>(transaction: Transaction, sql: string, bind: BindValues): Promise<T[]> | undefined {
  const tx = transaction as unknown as { connection?: TransactionConnection; finished?: string };
  if (!tx.connection || tx.finished) return undefined;
  const statement = compile(sql);
  const values = statement && statement.names.length > 0 ? valuesFor(statement.names, bind) : undefined;
  if (!statement || !values) return undefined;
  // In a pipelined transaction, leaves with whatever else is sent in this moment (COMMIT, say).
  holdWrites(transaction);
  return tx.connection.query<T & QueryResultRow>({ name: statement.name, text: statement.text, values }).then((result) => result.rows);
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
