import { accountsv1 } from '@propdesk/proto';
import { z } from 'zod';
import { livemodeSchema } from './common';

/**
 * The account's REST shape (SPEC section 9), written once: each field's JSON Schema (zod), how it
 * is read from the contract's Account message, and how PostgreSQL renders it for the list fast
 * path. The gateway and the panel map with toRestAccount, the gateway documents restAccountSchema,
 * and the accounts service renders pages with ACCOUNT_JSON_SQL. Adding a field is one entry in
 * ACCOUNT_FIELDS.
 */

export const ACCOUNT_STATUSES = ['active', 'passed', 'breached', 'archived'] as const;

/** The largest initial balance an account may be provisioned with (USD; cents allowed, nothing finer). */
export const MAX_INITIAL_BALANCE = 10_000_000;
export type AccountStatusName = (typeof ACCOUNT_STATUSES)[number];

const STATUS_OF_NAME: Record<AccountStatusName, accountsv1.AccountStatus> = {
  active: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  passed: accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED,
  breached: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
  archived: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED,
};

/** The contract's enum value of a status name (list filters). */
export function accountStatusValue(name: AccountStatusName): accountsv1.AccountStatus {
  return STATUS_OF_NAME[name];
}

/** The REST name of the contract's status; an unset or unknown value shows as active. */
export function accountStatusName(value: accountsv1.AccountStatus): AccountStatusName {
  switch (value) {
    case accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED:
      return 'passed';
    case accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED:
      return 'breached';
    case accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED:
      return 'archived';
    default:
      return 'active';
  }
}

/**
 * How one field is written into the JSON text by SQL concatenation: literal text around an
 * expression over the accounts row. The literals of neighbouring fields merge, so the statement
 * has one concatenation per value (about three times cheaper than row_to_json for a page).
 */
interface SqlJsonValue {
  before: string;
  expression: string;
  after: string;
}

/** Renderers for the SQL fast path, each taking the column (the REST name unless given). */
export const sqlJson = {
  /** integer columns: their text is the JSON number JSON.stringify writes. */
  number: (column?: string) => (name: string): SqlJsonValue => ({ before: '', expression: column ?? name, after: '' }),
  /**
   * numeric columns (money, numeric(20,2)): without the scale's trailing zeros, as JSON.stringify
   * writes the same number (100000, 95000.5), so the list and the single answer are the same text.
   */
  amount: (column?: string) => (name: string): SqlJsonValue => ({ before: '', expression: `trim_scale(${column ?? name})::text`, after: '' }),
  /** text that never needs escaping (enum names, uuids): quoted as it is. */
  plainString: (column?: string) => (name: string): SqlJsonValue => ({ before: '"', expression: column ?? name, after: '"' }),
  /** like plainString, null when the column is NULL. */
  plainStringOrNull: (column?: string) => (name: string): SqlJsonValue => ({
    before: '',
    expression: `coalesce('"' || ${column ?? name} || '"', 'null')`,
    after: '',
  }),
  /** any text: escaped by to_json. */
  text: (column?: string) => (name: string): SqlJsonValue => ({ before: '', expression: `to_json(${column ?? name})`, after: '' }),
  /** boolean columns: their text (true, false) is a valid JSON boolean. */
  boolean: (column?: string) => (name: string): SqlJsonValue => ({ before: '', expression: `${column ?? name}::text`, after: '' }),
  /** integer columns that may be NULL. */
  numberOrNull: (column?: string) => (name: string): SqlJsonValue => ({ before: '', expression: `coalesce(${column ?? name}::text, 'null')`, after: '' }),
  /** a nested object, written compactly like the top level (json_build_object would add spaces). */
  object: (fields: Record<string, (name: string) => SqlJsonValue>) => (): SqlJsonValue => ({ before: '', expression: objectJsonSql(fields), after: '' }),
  /** timestamptz as ISO 8601 UTC with milliseconds, as Date#toISOString writes it. */
  timestamp: (column?: string) => (name: string): SqlJsonValue => ({
    before: '"',
    expression: `to_char(${column ?? name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    after: '"',
  }),
};

interface AccountField<S extends z.ZodTypeAny> {
  schema: S;
  fromProto: (account: accountsv1.Account) => z.output<S>;
  sql: (name: string) => SqlJsonValue;
}

const field = <S extends z.ZodTypeAny>(schema: S, fromProto: (account: accountsv1.Account) => z.output<S>, sql: (name: string) => SqlJsonValue): AccountField<S> => ({
  schema,
  fromProto,
  sql,
});

const iso = (value: Date | undefined): string => (value ?? new Date(0)).toISOString();

/** In REST order. Money is a JSON number (numeric(20,2) in the database). */
export const ACCOUNT_FIELDS = {
  number: field(z.number().int().min(1), (a) => Number(a.number), sqlJson.number()),
  status: field(z.enum(ACCOUNT_STATUSES), (a) => accountStatusName(a.status), sqlJson.plainString()),
  trader_id: field(
    z.string().uuid().nullable().describe('null when unassigned'),
    (a) => (a.traderId === undefined || a.traderId === '' ? null : a.traderId),
    sqlJson.plainStringOrNull(),
  ),
  program: field(z.string(), (a) => a.program, sqlJson.text()),
  currency: field(z.string(), (a) => a.currency, sqlJson.text()),
  initial_balance: field(z.number(), (a) => a.initialBalance, sqlJson.amount()),
  balance: field(z.number(), (a) => a.balance, sqlJson.amount()),
  equity: field(z.number(), (a) => a.equity, sqlJson.amount()),
  peak_equity: field(z.number(), (a) => a.peakEquity, sqlJson.amount()),
  created_at: field(z.string().datetime(), (a) => iso(a.createdAt), sqlJson.timestamp()),
  program_version: field(z.number().int().min(1), (a) => a.programVersion || 1, sqlJson.number()),
  phase: field(
    z.object({ index: z.number().int().min(0).describe('0-based'), name: z.string(), kind: z.enum(['evaluation', 'funded']) }).strict(),
    (a) => ({ index: a.phase?.index ?? 0, name: a.phase?.name || 'evaluation', kind: a.phase?.kind === 'funded' ? ('funded' as const) : ('evaluation' as const) }),
    sqlJson.object({ index: sqlJson.number('phase_index'), name: sqlJson.text('phase_name'), kind: sqlJson.plainString('phase_kind') }),
  ),
  attempt: field(z.number().int().min(1).describe('1, then +1 per reset'), (a) => a.attempt || 1, sqlJson.number()),
  previous_account: field(
    z.number().int().nullable().describe("the previous phase's account"),
    (a) => (a.previousAccount === undefined ? null : Number(a.previousAccount)),
    sqlJson.numberOrNull(),
  ),
  next_account: field(
    z.number().int().nullable().describe("the next phase's account, once this one passed into it"),
    (a) => (a.nextAccount === undefined ? null : Number(a.nextAccount)),
    sqlJson.numberOrNull(),
  ),
  livemode: field(livemodeSchema, (a) => a.livemode, sqlJson.boolean()),
  trading_halted: field(
    z.boolean().describe('SPEC 14: an operator halted trading; new orders are refused (rule halted), evaluation goes on'),
    (a) => a.tradingHalted,
    sqlJson.boolean(),
  ),
};

type Fields = typeof ACCOUNT_FIELDS;
type FieldName = keyof Fields;
const FIELD_NAMES = Object.keys(ACCOUNT_FIELDS) as FieldName[];

/** The REST account; strict, so a field the shape does not know fails the checks against it. */
export const restAccountSchema = z
  .object(Object.fromEntries(FIELD_NAMES.map((name) => [name, ACCOUNT_FIELDS[name].schema])) as { [K in FieldName]: Fields[K]['schema'] })
  .strict();

export type RestAccount = z.output<typeof restAccountSchema>;

export function toRestAccount(account: accountsv1.Account): RestAccount {
  const rest: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) rest[name] = ACCOUNT_FIELDS[name].fromProto(account);
  return rest as RestAccount;
}

function sqlLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * An object as its JSON text, a SQL expression over a row's columns: literal runs and one
 * expression per field, joined with ||, in the fields' order and with no whitespace, the way
 * JSON.stringify writes the same object.
 */
function objectJsonSql(fields: Record<string, (name: string) => SqlJsonValue>): string {
  const parts: string[] = [];
  let literal = '{';
  Object.entries(fields).forEach(([name, render], i) => {
    const value = render(name);
    literal += `${i === 0 ? '' : ','}${JSON.stringify(name)}:${value.before}`;
    parts.push(sqlLiteral(literal), value.expression);
    literal = value.after;
  });
  parts.push(sqlLiteral(`${literal}}`));
  return parts.join(' || ');
}

/** One account row as its REST JSON text (ACCOUNT_FIELDS in REST order). */
function accountJsonSql(): string {
  return objectJsonSql(Object.fromEntries(FIELD_NAMES.map((name) => [name, ACCOUNT_FIELDS[name].sql])));
}

export const ACCOUNT_JSON_SQL = accountJsonSql();
