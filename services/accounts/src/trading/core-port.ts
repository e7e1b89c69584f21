/**
 * The trading module's one door into the accounts core: no other file under trading/ imports the
 * core, and the core imports nothing of trading (main.ts wires the two). What passes here:
 *   - the account: its one type, its frozen terms, reading and locking its row, writing the
 *     money and status a trading verdict changes, and how a refused status is answered;
 *   - the outbox (events commit with the change that caused them);
 *   - executor sessions (a breach ends them);
 *   - the phase lifecycle (the next phase's account on a pass, a credit for a reset), wired by main.ts;
 *   - the trader's KYC status (SPEC 14's payout gate);
 *   - request validation shared with the core's RPCs (the scope: organization and mode, SPEC 13),
 *     and the proto form of an account;
 *   - test clocks (SPEC 13): the clock an account lives on, and the walk of an advance (its lease,
 *     its progress, its end), with the clock's accounts locked for each step;
 *   - SPEC 15's time rules: a batch of accounts locked at once (the deadline scheduler), and the
 *     hook the core calls when a phase starts (new accounts), wired by main.ts.
 */
import type { Sequelize, TenantScope, Transaction } from '@propdesk/kit';
import { findAccount, findAccounts } from '../data/accounts';
import type { Account } from '../domain/account';

export type { Account, AccountStatus } from '../domain/account';
export { accountNotFound, refuseStatus, scopeOfAccount } from '../domain/account';
export { parseTerms, rulePackOf, type ProgramTerms as Terms } from '../domain/programs';
export { accountMoneyWithEvents, accountsStatusWithEvents, writeAccountMoney, writeMarkedEquity, type AccountMoney } from '../data/account-money';
export { writeAccountReset, writePayout, writeReinstated } from '../data/account-lifecycle';
export { kycStatusOf } from '../data/traders';
export { appendEvent, appendEvents, eventsStatements, EVENTS_NOTIFIED, type NewEvent } from '../data/outbox';
export type { PhaseLifecycle } from '../use-cases/phase-lifecycle';
export { revokeSessionsForAccount, revokeSessionsOfAccountsStatement, revokeSessionsStatement } from '../data/executor-sessions';
// Named for what they do here, where accountNumber is the value itself.
export { accountNumber as parseAccountNumber, tenantScope as parseScope, uuidParam as parseUuid } from '../domain/validation';
export { toProtoAccount } from '../grpc/mappers';
export { lockAccounts, lockActiveAccountsOnClock } from '../data/accounts';
export {
  advancingClockIds,
  claimAdvance,
  clockOfAccount,
  clockState,
  findTestClock,
  finishAdvance,
  lockAdvanceStep,
  releaseAdvance,
  writeClockTime,
  type ClockState,
} from '../data/test-clocks';
export { requireTestMode, testClockId as parseTestClockId, testClockNotFound, type TestClock } from '../domain/test-clock';
export type { TestClockMarket } from '../use-cases/test-clocks';

/** An account as committed; with a scope, another organization's or the other mode's account reads as missing. */
export function readAccount(sequelize: Sequelize, number: number, scope?: TenantScope, transaction?: Transaction): Promise<Account | null> {
  return findAccount(sequelize, scope ?? null, number, transaction ? { transaction } : undefined);
}

/** Many accounts by number, any organization (the engine's reloads). */
export function readAccounts(sequelize: Sequelize, numbers: number[]): Promise<Account[]> {
  return findAccounts(sequelize, numbers);
}

/**
 * Reads and locks the account row inside `tx`. Every transaction that changes an account's money
 * or status takes this lock first, so orders, closes, breaches and replicas serialize per account.
 */
export function lockAccount(sequelize: Sequelize, tx: Transaction, number: number, scope?: TenantScope): Promise<Account | null> {
  return findAccount(sequelize, scope ?? null, number, { transaction: tx, forUpdate: true });
}
