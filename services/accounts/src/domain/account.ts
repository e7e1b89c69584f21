import { AppError, type EventData, type KycStatusName, type TenantScope } from '@propdesk/kit';
import type { ProgramTerms } from './programs';

export const ACCOUNT_STATUSES = ['active', 'passed', 'breached', 'archived'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/**
 * An account as the use cases see it (NUMERIC/BIGINT already converted). Its organizationId and
 * livemode are its TenantScope (SPEC 13): what it does (events, the next phase's account) stays in it.
 */
export interface Account {
  number: number;
  organizationId: string;
  livemode: boolean;
  status: AccountStatus;
  traderId: string | null;
  program: string;
  terms: ProgramTerms;
  currency: string;
  initialBalance: number;
  balance: number;
  equity: number;
  peakEquity: number;
  /** SPEC 10: the program version frozen in, the phase, the attempt, the neighbouring phase accounts. */
  programVersion: number;
  phase: AccountPhase;
  attempt: number;
  /** When the current attempt (phase, or last reset) began: trading days and payouts count from it. */
  attemptStartedAt: Date;
  /** The last payout (funded): trading days for the next one count from it. */
  payoutAt: Date | null;
  previousAccount: number | null;
  nextAccount: number | null;
  /** SPEC 14: an operator halted trading (new orders refused, evaluation going on). */
  tradingHalted: boolean;
  /** The test clock it lives on (SPEC 13): its time and prices are the clock's. Null: the live market's. */
  testClockId: string | null;
  archivedAt: Date | null;
  createdAt: Date;
}

export interface AccountPhase {
  index: number;
  name: string;
  kind: 'evaluation' | 'funded';
}

/** What a list shows of an account: no frozen terms, so listing never parses them. */
export type AccountSummary = Omit<Account, 'terms' | 'archivedAt' | 'attemptStartedAt' | 'payoutAt'>;

export interface Trader {
  id: string;
  organizationId: string;
  livemode: boolean;
  name: string;
  email: string;
  createdAt: Date;
  /** SPEC 14: unverified until the firm says otherwise. */
  kycStatus: KycStatusName;
  kycReference: string | null;
}

/** SPEC 14's KYC statuses: the kit's one list. */
export { KYC_STATUSES, type KycStatusName as KycStatus } from '@propdesk/kit';

/** The scope an account belongs to: every event and account it leads to is of the same organization and mode. */
export function scopeOfAccount(account: Pick<Account, 'organizationId' | 'livemode'>): TenantScope {
  return { organizationId: account.organizationId, livemode: account.livemode };
}

/** Another organization's or the other mode's account is not_found, exactly like a missing one. */
export function accountNotFound(): AppError {
  return new AppError('not_found', 'account not found');
}

/** The API code and wording of each status an operation can be refused for (the one status -> error table). */
const REFUSING_STATUSES = {
  passed: { code: 'account_passed', wording: 'has passed its evaluation' },
  breached: { code: 'account_breached', wording: 'is breached' },
  archived: { code: 'account_archived', wording: 'is archived' },
} as const;

/** Statuses that refuse a new holder and an executor login; a passed account is still handed out and logged in to. */
export const CLOSED_TO_TRADERS: readonly AccountStatus[] = ['breached', 'archived'];

/**
 * Refuses an operation on an account whose status is one of `refused` (each operation's own
 * policy), with the code that names the status; `consequence` completes the message.
 */
export function refuseStatus(account: Pick<Account, 'number' | 'status'>, refused: readonly AccountStatus[], consequence: string): void {
  if (account.status === 'active' || !refused.includes(account.status)) return;
  const { code, wording } = REFUSING_STATUSES[account.status];
  throw new AppError(code, `account ${account.number} ${wording} and ${consequence}`);
}

/** credits.low fires once, on the reservation that crosses the threshold. */
export function crossesCreditsLow(remaining: number, threshold: number, count: number): boolean {
  return threshold > 0 && remaining < threshold && threshold <= remaining + count;
}

/** The event payload describing an account (snake_case, as integrators read it). */
export function accountEventData(account: Account): EventData<'account.created'> {
  return {
    account: account.number,
    status: account.status,
    trader_id: account.traderId,
    program: account.program,
    currency: account.currency,
    initial_balance: account.initialBalance,
    balance: account.balance,
    equity: account.equity,
    peak_equity: account.peakEquity,
    program_version: account.programVersion,
    phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
    attempt: account.attempt,
    previous_account: account.previousAccount,
    next_account: account.nextAccount,
  };
}
