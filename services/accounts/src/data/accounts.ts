import { execute, scopeBind, selectOne, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';
import type { Account, AccountStatus } from '../domain/account';
import { parseTerms, type ProgramTerms } from '../domain/programs';
import { clockNowSql } from './test-clocks';

export interface AccountRow {
  number: string;
  organization_id: string;
  livemode: boolean;
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
  trading_halted: boolean;
  test_clock_id: string | null;
  archived_at: Date | null;
  created_at: Date;
}

export const ACCOUNT_COLUMNS = `number, organization_id, livemode, status, trader_id, program, terms, currency, initial_balance, balance,
  equity, peak_equity, program_version, phase_index, phase_name, phase_kind, attempt, attempt_started_at, payout_at, previous_account,
  next_account, trading_halted, test_clock_id, archived_at, created_at`;

/** The SPEC 10 fields of a row (list pages and full reads alike). */
export function lifecycleOf(row: Omit<AccountRow, 'terms' | 'archived_at' | 'attempt_started_at' | 'payout_at'>) {
  return {
    programVersion: row.program_version,
    phase: { index: row.phase_index, name: row.phase_name, kind: row.phase_kind },
    attempt: row.attempt,
    previousAccount: row.previous_account === null ? null : toNumber(row.previous_account),
    nextAccount: row.next_account === null ? null : toNumber(row.next_account),
    tradingHalted: row.trading_halted,
    testClockId: row.test_clock_id,
  };
}

export function toAccount(row: AccountRow): Account {
  return {
    number: toNumber(row.number),
    organizationId: row.organization_id,
    livemode: row.livemode,
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

/** New accounts of one organization and mode (a next phase's account: its predecessor's). */
export interface NewAccounts extends TenantScope {
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
  /** Test mode: the clock they live on (SPEC 13); they are created at its time. */
  testClockId?: string | null;
}

/**
 * Inserts one account per sealed password; numbers come from the global sequence. An account on
 * a test clock is created (and its attempt started) at the clock's time.
 */
export async function insertAccounts(sequelize: Sequelize, tx: Transaction, input: NewAccounts): Promise<Account[]> {
  const rows = await selectRows<AccountRow>(
    sequelize,
    `INSERT INTO accounts (organization_id, livemode, program, terms, currency, initial_balance, balance, equity, peak_equity, executor_password_sealed,
                           program_version, phase_index, phase_name, phase_kind, trader_id, previous_account, test_clock_id, created_at, attempt_started_at)
     SELECT $org::uuid, $livemode::boolean, $program, $terms::jsonb, $currency, $balance::numeric, $balance::numeric, $balance::numeric, $balance::numeric, sealed,
            $version::integer, $phaseIndex::integer, $phaseName, $phaseKind, CAST($traderId AS uuid), CAST($previous AS bigint), clock.id, clock.at, clock.at
       FROM unnest($sealed::text[]) WITH ORDINALITY AS t(sealed, i),
            (SELECT CAST($clock AS text) AS id, ${clockNowSql('CAST($clock AS text)')} AS at) clock
      ORDER BY i
     RETURNING ${ACCOUNT_COLUMNS}`,
    {
      org: input.organizationId,
      livemode: input.livemode,
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
      clock: input.testClockId ?? null,
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
 * With a scope, another organization's or the other mode's account reads as missing; null = any
 * organization and mode (the engine, executor logins).
 */
export async function findAccount(
  sequelize: Sequelize,
  scope: TenantScope | null,
  number: number,
  options: { transaction?: Transaction; forUpdate?: boolean } = {},
): Promise<Account | null> {
  const row = await selectOne<AccountRow>(
    sequelize,
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE number = $number${scope === null ? '' : ' AND organization_id = $org AND livemode = $livemode'}${options.forUpdate ? ' FOR NO KEY UPDATE' : ''}`,
    scope === null ? { number } : { ...scopeBind(scope), number },
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

/** Many accounts of any organization, locked in number order (FOR NO KEY UPDATE, as findAccount): a batch of the time rules' scheduler. */
export async function lockAccounts(sequelize: Sequelize, tx: Transaction, numbers: number[]): Promise<Account[]> {
  if (numbers.length === 0) return [];
  const rows = await selectRows<AccountRow>(
    sequelize,
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE number = ANY($numbers::bigint[]) ORDER BY number FOR NO KEY UPDATE`,
    { numbers },
    tx,
  );
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

export async function findSealedPassword(sequelize: Sequelize, scope: TenantScope, number: number): Promise<string | null> {
  const row = await selectOne<{ executor_password_sealed: string }>(
    sequelize,
    'SELECT executor_password_sealed FROM accounts WHERE organization_id = $org AND livemode = $livemode AND number = $number',
    { ...scopeBind(scope), number },
  );
  return row?.executor_password_sealed ?? null;
}

/**
 * The lowest-numbered active unassigned account of the organization and mode, locked; rows other
 * claimers hold are skipped, so concurrent claims never wait on, or get, the same account, and a
 * claim never takes the other mode's account. The organization is a one-element array so that
 * the partial index accounts_claimable serves it (see accountKeyset in account-listing.ts).
 * Exposed so that a test can EXPLAIN exactly what runs.
 */
export const NEXT_CLAIMABLE_SQL = `SELECT ${ACCOUNT_COLUMNS} FROM accounts
      WHERE organization_id = ANY(ARRAY[$org::uuid]) AND livemode = $livemode AND trader_id IS NULL AND status = 'active'
      ORDER BY organization_id, livemode, number LIMIT 1 FOR UPDATE SKIP LOCKED`;

export async function lockNextClaimable(sequelize: Sequelize, tx: Transaction, scope: TenantScope): Promise<Account | null> {
  const row = await selectOne<AccountRow>(sequelize, NEXT_CLAIMABLE_SQL, scopeBind(scope), tx);
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
    `UPDATE accounts SET status = 'archived', archived_at = ${clockNowSql('test_clock_id')}, updated_at = now() WHERE number = $number RETURNING ${ACCOUNT_COLUMNS}`,
    { number },
    tx,
  );
  return toAccount(rows[0]);
}

export async function setSealedPassword(sequelize: Sequelize, tx: Transaction, number: number, sealed: string): Promise<void> {
  await execute(sequelize, 'UPDATE accounts SET executor_password_sealed = $sealed, updated_at = now() WHERE number = $number', { number, sealed }, tx);
}


/**
 * The active accounts living on a test clock, locked in number order (a step of the clock's
 * advance: nothing else changes them while it applies the time that passed).
 */
export async function lockActiveAccountsOnClock(sequelize: Sequelize, tx: Transaction, clockId: string): Promise<Account[]> {
  const rows = await selectRows<AccountRow>(
    sequelize,
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE test_clock_id = $clockId AND status = 'active' ORDER BY number FOR NO KEY UPDATE`,
    { clockId },
    tx,
  );
  return rows.map(toAccount);
}

/**
 * Archives every account of a test clock that is not archived yet (the clock is being deleted),
 * at the clock's time, in number order; answers each with the status it had before.
 */
export async function archiveAccountsOnClock(sequelize: Sequelize, tx: Transaction, clockId: string): Promise<Array<{ account: Account; previousStatus: AccountStatus }>> {
  const rows = await selectRows<AccountRow & { previous_status: AccountStatus }>(
    sequelize,
    `WITH locked AS (
       SELECT number, status FROM accounts WHERE test_clock_id = $clockId AND status <> 'archived' ORDER BY number FOR NO KEY UPDATE
     )
     UPDATE accounts a SET status = 'archived', archived_at = ${clockNowSql('a.test_clock_id')}, updated_at = now()
       FROM locked WHERE a.number = locked.number
     RETURNING ${ACCOUNT_COLUMNS.split(',').map((c) => `a.${c.trim()}`).join(', ')}, locked.status AS previous_status`,
    { clockId },
    tx,
  );
  return rows.map((row) => ({ account: toAccount(row), previousStatus: row.previous_status })).sort((x, y) => x.account.number - y.account.number);
}
