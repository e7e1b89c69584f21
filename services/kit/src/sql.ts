import { createHash } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { holdWrites } from './transaction';

/**
 * Values for the `$name` parameters of a statement. pg sends them apart from the SQL text, as
 * typed values: nothing is ever spliced into the text, a JS array arrives as a PostgreSQL array
 * (for `= ANY($ids)` and `unnest`), a Buffer as bytea. A parameter PostgreSQL cannot type from
 * its context (`$x IS NULL`) needs a cast: `CAST($x AS text)`.
 */
export type BindValues = Record<string, unknown>;

/** Rows of any statement that returns rows: SELECT, or INSERT/UPDATE/DELETE ... RETURNING. */
export function selectRows<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T[]> {
  return (transaction && inTransaction<T>(transaction, sql, bind)) || db.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
}

/** The first row, or undefined when there is none. */
export async function selectOne<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T | undefined> {
  const [row] = await selectRows<T>(db, sql, bind, transaction);
  return row;
}

/**
 * The statement sent at once on the transaction's connection (a named prepared statement, in
 * order with the transaction's other statements), or undefined when it goes through sequelize
 * (inTransaction's cases): only such a statement may have its answer awaited later.
 */
export function sentInTransaction(transaction: Transaction, sql: string, bind: BindValues): Promise<unknown> | undefined {
  return inTransaction(transaction, sql, bind);
}

/** A statement whose rows are not needed. */
export async function execute(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<void> {
  await ((transaction && inTransaction(transaction, sql, bind)) || db.query(sql, { bind, transaction }));
}

/**
 * One data-modifying statement (INSERT, UPDATE or DELETE without a WITH of its own) and its values.
 * With a `name`, its CTE in executeTogether is called that, and the statements after it may read
 * its RETURNING rows by that name (its output: they still do not see its effects on tables).
 */
export interface Statement {
  sql: string;
  bind: BindValues;
  name?: string;
}

/** The statements as the CTEs of one statement ending in `select`, their `$name`s renamed apart. */
function together(statements: Statement[], select: string): { sql: string; bind: BindValues } {
  const bind: BindValues = {};
  const ctes = statements.map((statement, i) => {
    const sql = statement.sql.replace(/\$([A-Za-z_]\w*)/g, (_, key: string) => {
      if (!(key in statement.bind)) throw new Error(`no value for $${key}`);
      bind[`s${i}_${key}`] = statement.bind[key];
      return `$s${i}_${key}`;
    });
    return `${statement.name ?? `s${i}`} AS (${sql})`;
  });
  return { sql: `WITH ${ctes.join(',\n')}\n${select}`, bind };
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

interface CompiledStatement {
  /** The text with `$name` turned into `$1`, `$2` ... in order of first appearance. */
  text: string;
  names: string[];
  /** The prepared statement's name on every connection (from the original text). */
  name: string;
}

/** Distinct statement texts prepared; beyond it, a text goes through sequelize unprepared (its connections' memory stays bounded). */
const MAX_PREPARED_TEXTS = 2000;
const compiled = new Map<string, CompiledStatement>();

function compile(sql: string): CompiledStatement | undefined {
  const known = compiled.get(sql);
  if (known || compiled.size >= MAX_PREPARED_TEXTS) return known;
  const names: string[] = [];
  const text = sql.replace(/\$([A-Za-z_]\w*)/g, (_, key: string) => {
    let i = names.indexOf(key);
    if (i < 0) i = names.push(key) - 1;
    return `$${i + 1}`;
  });
  const statement = { text, names, name: `pd_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}` };
  compiled.set(sql, statement);
  return statement;
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
  if (!statement || statement.names.length === 0 || statement.names.some((n) => bind[n] === undefined)) return undefined;
  const values = statement.names.map((n) => bind[n]);
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
