import { QueryTypes, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { Account, AccountStatus, AccountSummary } from '../domain/account';
import type { ProgramTerms } from '../domain/programs';
import { preparedRows } from './prepared';

interface AccountRow {
  number: string;
  organization_id: string;
  status: AccountStatus;
  trader_id: string | null;
  program: string;
  terms: ProgramTerms;
  currency: string;
  initial_balance: string;
  balance: string;
  equity: string;
  peak_equity: string;
  archived_at: Date | null;
  created_at: Date;
}

const ACCOUNT_COLUMNS = `number, organization_id, status, trader_id, program, terms, currency, initial_balance, balance,
  equity, peak_equity, archived_at, created_at`;

export function toAccount(row: AccountRow): Account {
  return {
    number: toNumber(row.number),
    organizationId: row.organization_id,
    status: row.status,
    traderId: row.trader_id,
    program: row.program,
    terms: row.terms,
    currency: row.currency,
    initialBalance: toNumber(row.initial_balance),
    balance: toNumber(row.balance),
    equity: toNumber(row.equity),
    peakEquity: toNumber(row.peak_equity),
    archivedAt: row.archived_at,
    createdAt: row.created_at,
  };
}

export interface NewAccounts {
  organizationId: string;
  program: string;
  terms: ProgramTerms;
  currency: string;
  initialBalance: number;
  sealedPasswords: string[];
}

/** Inserts one account per sealed password; numbers come from the global sequence. */
export async function insertAccounts(sequelize: Sequelize, tx: Transaction, input: NewAccounts): Promise<Account[]> {
  const rows = await sequelize.query<AccountRow>(
    `INSERT INTO accounts (organization_id, program, terms, currency, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     SELECT :org, :program, :terms::jsonb, :currency, :balance, :balance, :balance, :balance, sealed
       FROM unnest(ARRAY[:sealed]::text[]) WITH ORDINALITY AS t(sealed, i)
      ORDER BY i
     RETURNING ${ACCOUNT_COLUMNS}`,
    {
      replacements: {
        org: input.organizationId,
        program: input.program,
        terms: JSON.stringify(input.terms),
        currency: input.currency,
        balance: input.initialBalance,
        sealed: input.sealedPasswords,
      },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows.map(toAccount).sort((a, b) => a.number - b.number);
}

export async function findAccount(
  sequelize: Sequelize,
  org: string,
  number: number,
  options: { transaction?: Transaction; forUpdate?: boolean } = {},
): Promise<Account | null> {
  const rows = await sequelize.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE organization_id = :org AND number = :number${options.forUpdate ? ' FOR UPDATE' : ''}`,
    { replacements: { org, number }, type: QueryTypes.SELECT, transaction: options.transaction },
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Any organization: executor logins know only the number. */
export async function findAccountWithSecret(
  sequelize: Sequelize,
  number: number,
): Promise<{ account: Account; sealedPassword: string } | null> {
  const rows = await sequelize.query<AccountRow & { executor_password_sealed: string }>(
    `SELECT ${ACCOUNT_COLUMNS}, executor_password_sealed FROM accounts WHERE number = :number`,
    { replacements: { number }, type: QueryTypes.SELECT },
  );
  return rows[0] ? { account: toAccount(rows[0]), sealedPassword: rows[0].executor_password_sealed } : null;
}

export async function findSealedPassword(sequelize: Sequelize, org: string, number: number): Promise<string | null> {
  const rows = await sequelize.query<{ executor_password_sealed: string }>(
    'SELECT executor_password_sealed FROM accounts WHERE organization_id = :org AND number = :number',
    { replacements: { org, number }, type: QueryTypes.SELECT },
  );
  return rows[0]?.executor_password_sealed ?? null;
}

export interface AccountFilter {
  status?: AccountStatus;
  assigned?: boolean;
  traderId?: string;
}

/**
 * One keyset page: WHERE organization_id = :org [filters] AND number > :after ORDER BY number.
 * Every filter combination has an index starting with (organization_id, ...) and ending in number,
 * so a page deep in a million accounts costs what the first one does.
 */
type SummaryRow = Omit<AccountRow, 'terms' | 'archived_at'>;

const SUMMARY_COLUMNS = 'number, organization_id, status, trader_id, program, currency, initial_balance, balance, equity, peak_equity, created_at';

/**
 * The list is the hot path of the API: only the listed columns (the frozen terms' JSON is not
 * parsed), as a prepared statement.
 */
export async function listAccounts(
  sequelize: Sequelize,
  org: string,
  filter: AccountFilter,
  after: number,
  limit: number,
): Promise<AccountSummary[]> {
  const bind: unknown[] = [org, after, limit];
  const where = ['organization_id = $1', 'number > $2'];
  if (filter.status) where.push(`status = $${bind.push(filter.status)}`);
  if (filter.assigned === true) where.push('trader_id IS NOT NULL');
  if (filter.assigned === false) where.push('trader_id IS NULL');
  if (filter.traderId) where.push(`trader_id = $${bind.push(filter.traderId)}`);
  // One statement name per filter combination: the text behind a name never changes.
  const name = `list_accounts_${filter.status ? 's' : ''}${filter.assigned === undefined ? '' : filter.assigned ? 'a' : 'u'}${filter.traderId ? 't' : ''}`;
  const rows = await preparedRows<SummaryRow>(
    sequelize,
    name,
    `SELECT ${SUMMARY_COLUMNS} FROM accounts WHERE ${where.join(' AND ')} ORDER BY number LIMIT $3`,
    bind,
  );
  return rows.map((row) => ({
    number: toNumber(row.number),
    organizationId: row.organization_id,
    status: row.status,
    traderId: row.trader_id,
    program: row.program,
    currency: row.currency,
    initialBalance: toNumber(row.initial_balance),
    balance: toNumber(row.balance),
    equity: toNumber(row.equity),
    peakEquity: toNumber(row.peak_equity),
    createdAt: row.created_at,
  }));
}

export interface AccountPageJson {
  /** The REST representation of the page's accounts, as a JSON array. */
  json: string;
  /** Rows found, up to limit (one more than the page shows, to tell whether a next page exists). */
  found: number;
  /** The highest account number shown, the keyset position of the next page. */
  lastNumber: number | null;
}

/**
 * The same page rendered by PostgreSQL as the REST JSON of SPEC section 9 (row_to_json in C):
 * no row parsing, no message encoding, and the gateway writes the bytes as they are.
 */
export async function listAccountsJson(
  sequelize: Sequelize,
  org: string,
  filter: AccountFilter,
  after: number,
  shown: number,
): Promise<AccountPageJson> {
  const bind: unknown[] = [org, after, shown + 1, shown];
  const where = ['organization_id = $1', 'number > $2'];
  if (filter.status) where.push(`status = $${bind.push(filter.status)}`);
  if (filter.assigned === true) where.push('trader_id IS NOT NULL');
  if (filter.assigned === false) where.push('trader_id IS NULL');
  if (filter.traderId) where.push(`trader_id = $${bind.push(filter.traderId)}`);
  const name = `list_accounts_json_${filter.status ? 's' : ''}${filter.assigned === undefined ? '' : filter.assigned ? 'a' : 'u'}${filter.traderId ? 't' : ''}`;
  const [row] = await preparedRows<{ found: number; last_number: string | null; json: string }>(
    sequelize,
    name,
    `WITH page AS (
       SELECT ${SUMMARY_COLUMNS} FROM accounts WHERE ${where.join(' AND ')} ORDER BY number LIMIT $3
     ), shown AS (
       SELECT * FROM page ORDER BY number LIMIT $4
     )
     SELECT (SELECT count(*) FROM page)::int AS found,
            (SELECT max(number) FROM shown) AS last_number,
            '[' || coalesce((SELECT string_agg(row_to_json(r)::text, ',' ORDER BY r.number) FROM (
              SELECT number, status, trader_id, program, currency,
                     initial_balance::float8 AS initial_balance, balance::float8 AS balance,
                     equity::float8 AS equity, peak_equity::float8 AS peak_equity,
                     to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
                FROM shown) r), '') || ']' AS json`,
    bind,
  );
  return { json: row.json, found: row.found, lastNumber: row.last_number === null ? null : Number(row.last_number) };
}

/**
 * The lowest-numbered active unassigned account, locked; rows other claimers hold are skipped,
 * so concurrent claims never wait on, or get, the same account.
 */
export async function lockNextClaimable(sequelize: Sequelize, tx: Transaction, org: string): Promise<Account | null> {
  const rows = await sequelize.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts
      WHERE organization_id = :org AND trader_id IS NULL AND status = 'active'
      ORDER BY number LIMIT 1 FOR UPDATE SKIP LOCKED`,
    { replacements: { org }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function setTrader(sequelize: Sequelize, tx: Transaction, number: number, traderId: string | null): Promise<Account> {
  const rows = await sequelize.query<AccountRow>(
    `UPDATE accounts SET trader_id = :traderId, updated_at = now() WHERE number = :number RETURNING ${ACCOUNT_COLUMNS}`,
    { replacements: { number, traderId }, type: QueryTypes.SELECT, transaction: tx },
  );
  return toAccount(rows[0]);
}

export async function markArchived(sequelize: Sequelize, tx: Transaction, number: number): Promise<Account> {
  const rows = await sequelize.query<AccountRow>(
    `UPDATE accounts SET status = 'archived', archived_at = now(), updated_at = now() WHERE number = :number RETURNING ${ACCOUNT_COLUMNS}`,
    { replacements: { number }, type: QueryTypes.SELECT, transaction: tx },
  );
  return toAccount(rows[0]);
}

export async function setSealedPassword(sequelize: Sequelize, tx: Transaction, number: number, sealed: string): Promise<void> {
  await sequelize.query('UPDATE accounts SET executor_password_sealed = :sealed, updated_at = now() WHERE number = :number', {
    replacements: { number, sealed },
    transaction: tx,
  });
}
