import { accountsv1 } from '@propdesk/proto';
import { AppError } from '@propdesk/kit';
import { int64, iso, type Page, page } from './common';

export type AccountStatusName = 'active' | 'passed' | 'breached' | 'archived';

const STATUS_NAMES: Partial<Record<accountsv1.AccountStatus, AccountStatusName>> = {
  [accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE]: 'active',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED]: 'passed',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED]: 'breached',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED]: 'archived',
};

const STATUS_VALUES: Record<AccountStatusName, accountsv1.AccountStatus> = {
  active: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  passed: accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED,
  breached: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
  archived: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED,
};

export const ACCOUNT_STATUS_NAMES = Object.keys(STATUS_VALUES) as AccountStatusName[];

export function accountStatusFilter(value: string | undefined): accountsv1.AccountStatus {
  if (value === undefined) return accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED;
  if (!Object.prototype.hasOwnProperty.call(STATUS_VALUES, value)) {
    throw new AppError('invalid_request', `status must be one of ${ACCOUNT_STATUS_NAMES.join(', ')}`, 'status');
  }
  return STATUS_VALUES[value as AccountStatusName];
}

export interface RestAccount {
  number: number;
  status: AccountStatusName;
  trader_id: string | null;
  program: string;
  currency: string;
  initial_balance: number;
  balance: number;
  equity: number;
  peak_equity: number;
  created_at: string;
}

export interface RestTrader {
  id: string;
  name: string;
  email: string;
  created_at: string;
}

export interface RestCredentials {
  login: number;
  password: string;
  server: string;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new AppError('internal_error', `the service answered without ${what}`);
  return value;
}

export function toRestAccount(account: accountsv1.Account | undefined): RestAccount {
  const a = required(account, 'an account');
  return {
    number: int64(a.number),
    status: STATUS_NAMES[a.status] ?? 'active',
    trader_id: a.traderId === undefined || a.traderId === '' ? null : a.traderId,
    program: a.program,
    currency: a.currency,
    initial_balance: a.initialBalance,
    balance: a.balance,
    equity: a.equity,
    peak_equity: a.peakEquity,
    created_at: iso(a.createdAt),
  };
}

export function toRestTrader(trader: accountsv1.Trader | undefined): RestTrader {
  const t = required(trader, 'a trader');
  return { id: t.id, name: t.name, email: t.email, created_at: iso(t.createdAt) };
}

export function toRestCredentials(credentials: accountsv1.Credentials | undefined): RestCredentials {
  const c = required(credentials, 'credentials');
  return { login: int64(c.login), password: c.password, server: c.server };
}

export function toAccountPage(response: accountsv1.ListAccountsResponse): Page<RestAccount> {
  return page(response.accounts.map(toRestAccount), response.nextPageToken);
}

const PAGE_OPEN = Buffer.from('{"data":');

/**
 * A json_view page: the accounts arrive already rendered as the REST array, so the body is built
 * around those bytes instead of decoding, mapping and re-encoding every account.
 */
export function accountPageBody(response: accountsv1.ListAccountsResponse): Buffer {
  const close = Buffer.from(`,"next_cursor":${response.nextPageToken ? JSON.stringify(response.nextPageToken) : 'null'}}`);
  return Buffer.concat([PAGE_OPEN, response.accountsJson, close]);
}

export interface RestEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

export function toRestEvent(event: accountsv1.Event): RestEvent {
  return {
    id: event.id,
    type: event.type,
    created_at: iso(event.createdAt),
    organization_id: event.organizationId,
    data: (event.data as Record<string, unknown> | undefined) ?? {},
  };
}
