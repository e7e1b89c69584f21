import { AppError } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { StoredEvent } from '../data/events';
import { KYC_STATUSES, type AccountStatus, type AccountSummary, type KycStatus, type Trader } from '../domain/account';
import { shownFrozenTime, type TestClock } from '../domain/test-clock';
import type { Credentials } from '../use-cases/credentials';

const STATUS_TO_PROTO: Record<AccountStatus, accountsv1.AccountStatus> = {
  active: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  passed: accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED,
  breached: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
  archived: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED,
};

/** UNSPECIFIED = no filter; anything unknown is invalid_request naming `status`. */
export function statusFromProto(value: accountsv1.AccountStatus | undefined): AccountStatus | undefined {
  if (value === undefined || value === accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED) return undefined;
  const found = (Object.entries(STATUS_TO_PROTO) as Array<[AccountStatus, accountsv1.AccountStatus]>).find(([, v]) => v === value);
  if (!found) throw new AppError('invalid_request', 'status must be one of active, passed, breached, archived', 'status');
  return found[0];
}

export function toProtoAccount(account: AccountSummary): accountsv1.Account {
  return {
    number: String(account.number),
    organizationId: account.organizationId,
    status: STATUS_TO_PROTO[account.status],
    traderId: account.traderId ?? undefined,
    program: account.program,
    currency: account.currency,
    initialBalance: account.initialBalance,
    balance: account.balance,
    equity: account.equity,
    peakEquity: account.peakEquity,
    createdAt: account.createdAt,
    programVersion: account.programVersion,
    phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
    attempt: account.attempt,
    previousAccount: account.previousAccount === null ? undefined : String(account.previousAccount),
    nextAccount: account.nextAccount === null ? undefined : String(account.nextAccount),
    livemode: account.livemode,
    tradingHalted: account.tradingHalted,
    testClockId: account.testClockId ?? undefined,
  };
}

export function toProtoTestClock(clock: TestClock): accountsv1.TestClock {
  return {
    id: clock.id,
    organizationId: clock.organizationId,
    name: clock.name ?? '',
    frozenTime: shownFrozenTime(clock),
    status: clock.status === 'advancing' ? accountsv1.TestClockStatus.TEST_CLOCK_STATUS_ADVANCING : accountsv1.TestClockStatus.TEST_CLOCK_STATUS_READY,
    createdAt: clock.createdAt,
    livemode: clock.livemode,
  };
}

const KYC_TO_PROTO: Record<KycStatus, accountsv1.KycStatus> = {
  unverified: accountsv1.KycStatus.KYC_STATUS_UNVERIFIED,
  pending: accountsv1.KycStatus.KYC_STATUS_PENDING,
  verified: accountsv1.KycStatus.KYC_STATUS_VERIFIED,
  rejected: accountsv1.KycStatus.KYC_STATUS_REJECTED,
};

/** A KYC status of a request; UNSPECIFIED or an unknown value is invalid_request naming `status`. */
export function kycStatusFromProto(value: accountsv1.KycStatus | undefined): KycStatus {
  const found = (Object.entries(KYC_TO_PROTO) as Array<[KycStatus, accountsv1.KycStatus]>).find(([, v]) => v === value);
  if (!found) throw new AppError('invalid_request', `status must be one of ${KYC_STATUSES.join(', ')}`, 'status');
  return found[0];
}

export function toProtoTrader(trader: Trader): accountsv1.Trader {
  return {
    id: trader.id,
    organizationId: trader.organizationId,
    name: trader.name,
    email: trader.email,
    createdAt: trader.createdAt,
    livemode: trader.livemode,
    kycStatus: KYC_TO_PROTO[trader.kycStatus],
    kycReference: trader.kycReference ?? undefined,
  };
}

export function toProtoCredentials(credentials: Credentials): accountsv1.Credentials {
  return { login: String(credentials.login), password: credentials.password, server: credentials.server };
}

export function toProtoEvent(event: StoredEvent): accountsv1.Event {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    organizationId: event.organizationId,
    livemode: event.livemode,
    sequence: event.sequence === null ? undefined : String(event.sequence),
    data: event.data,
    traceparent: event.trace?.traceparent ?? '',
    tracestate: event.trace?.tracestate ?? '',
  };
}
