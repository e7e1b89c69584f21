import { createHash } from 'node:crypto';

/**
 * Statements with `$name` parameters, and what they become on the wire: positional parameters of
 * a named prepared statement. Shared by sql.ts (statements run now) and transaction.ts (statements
 * sent with COMMIT); it depends on neither.
 */

/**
 * Values for the `$name` parameters of a statement. pg sends them apart from the SQL text, as
 * typed values: nothing is ever spliced into the text, a JS array arrives as a PostgreSQL array
 * (for `= ANY($ids)` and `unnest`), a Buffer as bytea. A parameter PostgreSQL cannot type from
 * its context (`$x IS NULL`) needs a cast: `CAST($x AS text)`.
 */
export type BindValues = Record<string, unknown>;

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

/** A `$name` parameter. */
const PARAMETER = /\$([A-Za-z_]\w*)/g;

/**
 * The statements' texts as the CTEs of one statement ending in `select`, each `$name` renamed
 * `$s<i>_<name>` (i: the statement's place); `each` sees every parameter renamed.
 */
function renamedApart(statements: Array<{ sql: string; name?: string }>, select: string, each?: (i: number, key: string) => void): string {
  const ctes = statements.map((statement, i) => {
    const sql = statement.sql.replace(PARAMETER, (_, key: string) => {
      each?.(i, key);
      return `$s${i}_${key}`;
    });
    return `${statement.name ?? `s${i}`} AS (${sql})`;
  });
  return `WITH ${ctes.join(',\n')}\n${select}`;
}

/** The statements as the CTEs of one statement ending in `select`, their `$name`s renamed apart. */
export function together(statements: Statement[], select: string): { sql: string; bind: BindValues } {
  const bind: BindValues = {};
  const sql = renamedApart(statements, select, (i, key) => {
    if (!(key in statements[i].bind)) throw new Error(`no value for $${key}`);
    bind[`s${i}_${key}`] = statements[i].bind[key];
  });
  return { sql, bind };
}

export interface CompiledStatement {
  /** The text with `$name` turned into `$1`, `$2` ... in order of first appearance. */
  text: string;
  names: string[];
  /** The prepared statement's name on every connection (from the original text). */
  name: string;
}

/** What every prepared statement's name starts with (the rest is a hash of its text): telemetry/sdk.ts names their spans by command instead. */
export const PREPARED_NAME_PREFIX = 'pd_';

/** Distinct statement texts prepared; beyond it, a text goes through sequelize unprepared (its connections' memory stays bounded). */
const MAX_PREPARED_TEXTS = 2000;
const compiled = new Map<string, CompiledStatement>();

function compileText(sql: string): CompiledStatement {
  const names: string[] = [];
  const text = sql.replace(PARAMETER, (_, key: string) => {
    let i = names.indexOf(key);
    if (i < 0) i = names.push(key) - 1;
    return `$${i + 1}`;
  });
  return { text, names, name: `${PREPARED_NAME_PREFIX}${createHash('sha1').update(sql).digest('hex').slice(0, 24)}` };
}

/** The prepared form of a text, made once; undefined once MAX_PREPARED_TEXTS texts are known. */
export function compile(sql: string): CompiledStatement | undefined {
  const known = compiled.get(sql);
  if (known || compiled.size >= MAX_PREPARED_TEXTS) return known;
  const statement = compileText(sql);
  compiled.set(sql, statement);
  return statement;
}

/** The positional form of a text: the prepared one while MAX_PREPARED_TEXTS allows, else worked out now. */
function formOf(sql: string): CompiledStatement {
  return compile(sql) ?? compileText(sql);
}

/** What node-postgres is handed: a named prepared statement, or an unnamed one. */
export interface WireStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/** The values of `names` from `bind`, in order; undefined when one has none. */
export function valuesFor(names: string[], bind: BindValues): unknown[] | undefined {
  const values = names.map((n) => bind[n]);
  return values.includes(undefined) ? undefined : values;
}

/** Whether every `$name` of the statement has a value. */
export function bindsEvery(statement: { sql: string; bind: BindValues }): boolean {
  return formOf(statement.sql).names.every((n) => statement.bind[n] !== undefined);
}

/**
 * A statement with a value for every `$name` as node-postgres takes it: prepared under its name
 * while fewer than MAX_PREPARED_TEXTS texts are known, unnamed (parsed at each run) beyond.
 * Undefined when a `$name` has no value.
 */
function wireStatement(statement: { sql: string; bind: BindValues }): WireStatement | undefined {
  const known = compile(statement.sql);
  const form = known ?? compileText(statement.sql);
  const values = valuesFor(form.names, statement.bind);
  if (!values) return undefined;
  return known ? { name: known.name, text: known.text, values } : { text: form.text, values };
}

interface MergedForm {
  /** Undefined beyond MAX_PREPARED_TEXTS texts: sent unnamed. */
  name?: string;
  text: string;
  /** For each positional parameter: the statement and the `$name` its value comes from. */
  slots: Array<[number, string]>;
}

/**
 * Merged forms by their statements' texts, one level per statement: the texts are the code's own
 * constants, whose hashes V8 keeps, so a commit of the same kinds of statement costs a few lookups.
 */
interface MergeNode {
  next?: Map<string, MergeNode>;
  form?: MergedForm;
}
const merges: MergeNode = {};
let mergeNodes = 0;

function mergedForm(statements: Statement[]): MergedForm {
  let node: MergeNode | undefined = merges;
  for (const statement of statements) {
    if (!node) break;
    let child: MergeNode | undefined = node.next?.get(statement.sql);
    // Bounded like the prepared texts: beyond, a form is worked out each time.
    if (!child && mergeNodes < MAX_PREPARED_TEXTS) {
      child = {};
      mergeNodes += 1;
      (node.next ??= new Map()).set(statement.sql, child);
    }
    node = child;
  }
  if (node?.form) return node.form;
  // The text only: the values are read at each call, through `slots`.
  const sources = new Map<string, [number, string]>();
  const sql = renamedApart(statements, 'SELECT 1', (i, key) => sources.set(`s${i}_${key}`, [i, key]));
  const compiled = compile(sql);
  const form = compiled ?? compileText(sql);
  const merged: MergedForm = { name: compiled?.name, text: form.text, slots: form.names.map((n) => sources.get(n)!) };
  if (compiled && node) node.form = merged;
  return merged;
}

/**
 * Statements as one (each a CTE of it, `together`), as node-postgres takes it; its form is worked
 * out once per sequence of texts. Undefined when a `$name` has no value.
 */
export function mergedWireStatement(statements: Statement[]): WireStatement | undefined {
  if (statements.length === 1) return wireStatement(statements[0]);
  const form = mergedForm(statements);
  const values = form.slots.map(([i, n]) => statements[i].bind[n]);
  if (values.includes(undefined)) return undefined;
  return form.name ? { name: form.name, text: form.text, values } : { text: form.text, values };
}
