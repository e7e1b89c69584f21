import type { ProgramTerms } from './programs';

export const ACCOUNT_STATUSES = ['active', 'passed', 'breached', 'archived'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** An account as the use cases see it (NUMERIC/BIGINT already converted). */
export interface Account {
  number: number;
  organizationId: string;
  status: AccountStatus;
  traderId: string | null;
  program: string;
  terms: ProgramTerms;
  currency: string;
  initialBalance: number;
  balance: number;
  equity: number;
  peakEquity: number;
  archivedAt: Date | null;
  createdAt: Date;
}

/** What a list shows of an account: no frozen terms, so listing never parses them. */
export type AccountSummary = Omit<Account, 'terms' | 'archivedAt'>;

export interface Trader {
  id: string;
  organizationId: string;
  name: string;
  email: string;
  createdAt: Date;
}

/** Why an account cannot be handed to a trader, or null when it can. */
export function assignmentBlocker(status: AccountStatus): 'account_archived' | 'account_breached' | null {
  if (status === 'archived') return 'account_archived';
  if (status === 'breached') return 'account_breached';
  return null;
}

/** credits.low fires once, on the reservation that crosses the threshold. */
export function crossesCreditsLow(remaining: number, threshold: number, count: number): boolean {
  return threshold > 0 && remaining < threshold && threshold <= remaining + count;
}

/** The event payload describing an account (snake_case, as integrators read it). */
export function accountEventData(account: Account): Record<string, unknown> {
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
  };
}
