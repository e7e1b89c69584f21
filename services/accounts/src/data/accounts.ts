import { ACCOUNT_JSON_SQL, execute, preparedRows, selectOne, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { Account, AccountStatus, AccountSummary } from '../domain/account';
import { parseTerms, type ProgramTerms } from '../domain/programs';

interface AccountRow {
  number: string;
  organization_id: string;
  status: AccountStatus;
  trader_id: string | null;
  program: string;
  terms: unknown;
  currency: string;
  initial_balance: string;
  balance: string;
  equity: string;
  peak_equity: string;
  program_version: number;
  phase_index: number;
  phase_name: string;
  phase_kind: 'evaluation' | 'funded';
  attempt: number;
  attempt_started_at: Date;
  payout_at: Date | null;
  previous_account: string | null;
  next_account: string | null;
  archived_at: Date | null;
  created_at: Date;
}

const ACCOUNT_COLUMNS = `number, organization_id, status, trader_id, program, terms, currency, initial_balance, balance,
  equity, peak_equity, program_version, phase_index, phase_name, phase_kind, attempt, attempt_started_at, payout_at, previous_account,
  next_account, archived_at, created_at`;

/** The SPEC 10 fields of a row (list pages and full reads alike). */
function lifecycleOf(row: Omit<AccountRow, 'terms' | 'archived_at' | 'attempt_started_at' | 'payout_at'>) {
  return {
    programVersion: row.program_version,
    phase: { index: row.phase_index, name: row.phase_name, kind: row.phase_kind },
    attempt: row.attempt,
    previousAccount: row.previous_account === null ? null : toNumber(row.previous_account),
    nextAccount: row.next_account === null ? null : toNumber(row.next_account),
  };
}

export function toAccount(row: AccountRow): Account {
  return {
    number: toNumber(row.number),
    organizationId: row.organization_id,
    status: row.status,
    traderId: row.trader_id,
    program: row.program,
    terms: parseTerms(row.terms),
    currency: row.currency,
    initialBalance: toNumber(row.initial_balance),
    balance: toNumber(row.balance),
    equity: toNumber(row.equity),
    peakEquity: toNumber(row.peak_equity),
    ...lifecycleOf(row),
    attemptStartedAt: row.attempt_started_at,
    payoutAt: row.payout_at,
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
  /** SPEC 10; built-ins: version 1, the one phase 'evaluation'. */
  programVersion?: number;
  phase?: { index: number; name: string; kind: 'evaluation' | 'funded' };
  /** A next phase's account: the trader assigned and the account it follows. */
  traderId?: string | null;
  previousAccount?: number | null;
}

/** Inserts one account per sealed password; numbers come from the global sequence. */
export async function insertAccounts(sequelize: Sequelize, tx: Transaction, input: NewAccounts): Promise<Account[]> {
  const rows = await selectRows<AccountRow>(
    sequelize,
    `INSERT INTO accounts (organization_id, program, terms, currency, initial_balance, balance, equity, peak_equity, executor_password_sealed,
                           program_version, phase_index, phase_name, phase_kind, trader_id, previous_account)
     SELECT $org::uuid, $program, $terms::jsonb, $currency, $balance::numeric, $balance::numeric, $balance::numeric, $balance::numeric, sealed,
            $version::integer, $phaseIndex::integer, $phaseName, $phaseKind, CAST($traderId AS uuid), CAST($previous AS bigint)
       FROM unnest($sealed::text[]) WITH ORDINALITY AS t(sealed, i)
      ORDER BY i
     RETURNING ${ACCOUNT_COLUMNS}`,
    {
      org: input.organizationId,
      program: input.program,
      terms: JSON.stringify(input.terms),
      currency: input.currency,
      balance: input.initialBalance,
      sealed: input.sealedPasswords,
      version: input.programVersion ?? 1,
      phaseIndex: input.phase?.index ?? 0,
      phaseName: input.phase?.name ?? 'evaluation',
      phaseKind: input.phase?.kind ?? 'evaluation',
      traderId: input.traderId ?? null,
      previous: input.previousAccount ?? null,
    },
    tx,
  );
  return rows.map(toAccount).sort((a, b) => a.number - b.number);
}

/**
 * One account, optionally locked: every transaction that changes an account's money, status or
 * holder takes this row lock first, so concurrent changes (and replicas) serialize per account.
 * FOR NO KEY UPDATE (what an UPDATE of non-key columns takes), not FOR UPDATE: writes that only
 * reference the account (the equity writer's minute buckets and drawdowns, whose foreign-key checks
 * take FOR KEY SHARE) go through while it is held. With FOR UPDATE, a bucket upsert waiting on a
 * breach's lock while the breach upserted the same minute deadlocked (and stalled the breach for
 * PostgreSQL's deadlock_timeout).
 * With an organization, another organization's account reads as missing; null = any organization.
 */
export async function findAccount(
  sequelize: Sequelize,
  org: string | null,
  number: number,
  options: { transaction?: Transaction; forUpdate?: boolean } = {},
): Promise<Account | null> {
  const row = await selectOne<AccountRow>(
    sequelize,
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE number = $number${org === null ? '' : ' AND organization_id = $org'}${options.forUpdate ? ' FOR NO KEY UPDATE' : ''}`,
    org === null ? { number } : { org, number },
    options.transaction,
  );
  return row ? toAccount(row) : null;
}

/** Many accounts of any organization by number, in one statement (the trading engine's reloads). */
export async function findAccounts(sequelize: Sequelize, numbers: number[]): Promise<Account[]> {
  if (numbers.length === 0) return [];
  const rows = await selectRows<AccountRow>(sequelize, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE number = ANY($numbers::bigint[])`, { numbers });
  return rows.map(toAccount);
}

/** Any organization: executor logins know only the number. */
export async function findAccountWithSecret(
  sequelize: Sequelize,
  number: number,
): Promise<{ account: Account; sealedPassword: string } | null> {
  const row = await selectOne<AccountRow & { executor_password_sealed: string }>(
    sequelize,
    `SELECT ${ACCOUNT_COLUMNS}, executor_password_sealed FROM accounts WHERE number = $number`,
    { number },
  );
  return row ? { account: toAccount(row), sealedPassword: row.executor_password_sealed } : null;
}

export async function findSealedPassword(sequelize: Sequelize, org: string, number: number): Promise<string | null> {
  const row = await selectOne<{ executor_password_sealed: string }>(
    sequelize,
    'SELECT executor_password_sealed FROM accounts WHERE organization_id = $org AND number = $number',
    { org, number },
  );
  return row?.executor_password_sealed ?? null;
}

export interface AccountFilter {
  status?: AccountStatus;
  assigned?: boolean;
  traderId?: string;
}

/**
 * One keyset page: organization, filters, number > after, in account-number order, through an
 * index that starts with (organization_id, ...) and ends in number, so a page deep in a million
 * accounts costs what the first one does.
 *
 * The organization (and the filter column that picks the index) are written as one-value
 * ranges, not equalities, and ordered on explicitly. With `organization_id = $1 ORDER BY number`
 * the planner may walk the primary key — global number order — assuming an organization's rows
 * are spread evenly through it; for an organization whose accounts come after another's million,
 * that walk passes every one of them (measured: 170 ms for a first page, 230 ms per claim). As a
 * range, only the per-organization indexes can deliver the order.
 */
export interface KeysetQuery {
  where: string[];
  orderBy: string;
  bind: unknown[];
  /** The SQL type of each bind parameter, in order (a batch binds each one as an array of them). */
  types: string[];
  /** Distinguishes prepared statements: the same shape always has the same text. */
  shape: string;
}

/** Which filters are present ('t' trader, 's' status, 'a'/'u' assigned): pages of one shape share a statement text. */
export function keysetShape(filter: AccountFilter): string {
  return `${filter.traderId ? 't' : ''}${filter.status ? 's' : ''}${filter.assigned === undefined ? '' : filter.assigned ? 'a' : 'u'}`;
}

export function accountKeyset(org: string, filter: AccountFilter, after: number, firstBind: number[] = []): KeysetQuery {
  const bind: unknown[] = [...firstBind];
  const types = firstBind.map(() => 'int');
  const param = (value: unknown, type: string) => {
    types.push(type);
    return `$${bind.push(value)}`;
  };
  const orgParam = param(org, 'uuid');
  const where = [`organization_id >= ${orgParam}`, `organization_id <= ${orgParam}`, `number > ${param(after, 'bigint')}`];
  const order = ['organization_id'];
  if (filter.traderId) {
    // (organization_id, trader_id, number): the most selective index when a trader is named
    const p = param(filter.traderId, 'uuid');
    where.push(`trader_id >= ${p}`, `trader_id <= ${p}`);
    order.push('trader_id');
  }
  if (filter.status) {
    const p = param(filter.status, 'text');
    if (filter.traderId) where.push(`status = ${p}`);
    else {
      // (organization_id, status, number)
      where.push(`status >= ${p}`, `status <= ${p}`);
      order.push('status');
    }
  }
  // (organization_id, number) WHERE trader_id IS [NOT] NULL
  if (filter.assigned === true) where.push('trader_id IS NOT NULL');
  if (filter.assigned === false) where.push('trader_id IS NULL');
  order.push('number');
  return { where, orderBy: order.join(', '), bind, types, shape: keysetShape(filter) };
}

type SummaryRow = Omit<AccountRow, 'terms' | 'archived_at' | 'attempt_started_at' | 'payout_at'>;

export interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

/** The list page's statement (exposed so that a test can EXPLAIN exactly what runs). */
export function listAccountsStatement(org: string, filter: AccountFilter, after: number, limit: number): Statement {
  const q = accountKeyset(org, filter, after, [limit]);
  return {
    name: `list_accounts_${q.shape}`,
    text: `SELECT ${SUMMARY_COLUMNS} FROM accounts WHERE ${q.where.join(' AND ')} ORDER BY ${q.orderBy} LIMIT $1`,
    values: q.bind,
  };
}

const SUMMARY_COLUMNS = `number, organization_id, status, trader_id, program, currency, initial_balance, balance, equity, peak_equity,
  program_version, phase_index, phase_name, phase_kind, attempt, previous_account, next_account, created_at`;

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
  const statement = listAccountsStatement(org, filter, after, limit);
  const rows = await preparedRows<SummaryRow>(sequelize, statement.name, statement.text, statement.values);
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
    ...lifecycleOf(row),
    createdAt: row.created_at,
  }));
}

/**
 * One account as the REST JSON of SPEC section 9, rendered by PostgreSQL from the kit's one
 * definition of the shape (ACCOUNT_FIELDS): concatenation, about three times cheaper than
 * row_to_json (measured: ~100 us against ~305 us for 50 accounts).
 */
const ACCOUNT_JSON = ACCOUNT_JSON_SQL;

export interface AccountPageJson {
  /** The REST representation of the page's accounts, as a JSON array. */
  json: string;
  /** Rows found, up to limit (one more than the page shows, to tell whether a next page exists). */
  found: number;
  /** The highest account number shown, the keyset position of the next page. */
  lastNumber: number | null;
}

export interface PageQuery {
  org: string;
  filter: AccountFilter;
  /** Keyset position: accounts numbered above it. */
  after: number;
  /** Accounts the page shows. */
  shown: number;
}

/**
 * The statement behind listAccountsJson for pages of one shape: the pages' parameters arrive as
 * one JSON array of records, and a lateral subquery runs the keyset page of SUMMARY_COLUMNS once
 * per record (an index scan each, parameterized by it). JSON rather than parallel arrays on
 * purpose: the planner cannot see how many records there are, so custom and generic plans cost
 * the same and PostgreSQL keeps the prepared statement's generic plan instead of planning every
 * execution again (measured: ~30% of a one-page call's round trip). Exposed so that a test can
 * EXPLAIN exactly what runs.
 */
export function listAccountsJsonStatement(pages: PageQuery[]): Statement {
  const queries = pages.map((p) => accountKeyset(p.org, p.filter, p.after, [p.shown + 1, p.shown]));
  const first = queries[0];
  if (queries.some((q) => q.shape !== first.shape)) throw new Error('listAccountsJsonStatement: pages of different shapes');
  const column = (sql: string) => sql.replace(/\$(\d+)\b/g, 'r.p$1');
  const columns = first.types.map((type, i) => `p${i + 1} ${type}`).join(', ');
  const records = queries.map((q, i) => Object.fromEntries([...q.bind.map((value, j) => [`p${j + 1}`, value]), ['i', i]]));
  return {
    name: `list_accounts_json_${first.shape}`,
    text: `SELECT p.found, p.last_number, p.json
       FROM jsonb_to_recordset($1::jsonb) AS r(${columns}, i int)
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS found,
                max(number) FILTER (WHERE n <= r.p2) AS last_number,
                '[' || coalesce(string_agg(${ACCOUNT_JSON}, ',' ORDER BY number) FILTER (WHERE n <= r.p2), '') || ']' AS json
           FROM (SELECT page.*, row_number() OVER (ORDER BY number) AS n
                   FROM (SELECT ${SUMMARY_COLUMNS} FROM accounts WHERE ${column(first.where.join(' AND '))}
                          ORDER BY ${first.orderBy} LIMIT r.p1) page) numbered
       ) p
       ORDER BY r.i`,
    values: [JSON.stringify(records)],
  };
}

/**
 * Pages of one shape rendered by PostgreSQL as the REST JSON of SPEC section 9 (ACCOUNT_JSON),
 * in one statement however many there are: no row parsing, no message encoding, and the gateway
 * writes the bytes as they are. Results are in the order of `pages`.
 */
export async function listAccountsJson(sequelize: Sequelize, pages: PageQuery[]): Promise<AccountPageJson[]> {
  if (pages.length === 0) return [];
  const statement = listAccountsJsonStatement(pages);
  const rows = await preparedRows<{ found: number; last_number: string | null; json: string }>(
    sequelize,
    statement.name,
    statement.text,
    statement.values,
  );
  return rows.map((row) => ({ json: row.json, found: row.found, lastNumber: row.last_number === null ? null : Number(row.last_number) }));
}

/**
 * The lowest-numbered active unassigned account, locked; rows other claimers hold are skipped,
 * so concurrent claims never wait on, or get, the same account. The organization is a range so
 * that the partial index accounts_claimable serves it (see accountKeyset). Exposed so that a test
 * can EXPLAIN exactly what runs.
 */
export const NEXT_CLAIMABLE_SQL = `SELECT ${ACCOUNT_COLUMNS} FROM accounts
      WHERE organization_id >= $org AND organization_id <= $org AND trader_id IS NULL AND status = 'active'
      ORDER BY organization_id, number LIMIT 1 FOR UPDATE SKIP LOCKED`;

export async function lockNextClaimable(sequelize: Sequelize, tx: Transaction, org: string): Promise<Account | null> {
  const row = await selectOne<AccountRow>(sequelize, NEXT_CLAIMABLE_SQL, { org }, tx);
  return row ? toAccount(row) : null;
}

export async function setTrader(sequelize: Sequelize, tx: Transaction, number: number, traderId: string | null): Promise<Account> {
  const rows = await selectRows<AccountRow>(
    sequelize,
    `UPDATE accounts SET trader_id = $traderId, updated_at = now() WHERE number = $number RETURNING ${ACCOUNT_COLUMNS}`,
    { number, traderId },
    tx,
  );
  return toAccount(rows[0]);
}

export async function markArchived(sequelize: Sequelize, tx: Transaction, number: number): Promise<Account> {
  const rows = await selectRows<AccountRow>(
    sequelize,
    `UPDATE accounts SET status = 'archived', archived_at = now(), updated_at = now() WHERE number = $number RETURNING ${ACCOUNT_COLUMNS}`,
    { number },
    tx,
  );
  return toAccount(rows[0]);
}

export async function setSealedPassword(sequelize: Sequelize, tx: Transaction, number: number, sealed: string): Promise<void> {
  await execute(sequelize, 'UPDATE accounts SET executor_password_sealed = $sealed, updated_at = now() WHERE number = $number', { number, sealed }, tx);
}

