import { AppError } from '@propdesk/kit';
import type { TradingAccount } from '../data/account-state';

/** Orders, closes and breaches need an active account; the others answer with their status code. */
export function requireActive(account: TradingAccount): void {
  switch (account.status) {
    case 'active':
      return;
    case 'breached':
      throw new AppError('account_breached', `account ${account.number} is breached; it no longer trades`);
    case 'passed':
      throw new AppError('account_passed', `account ${account.number} has passed its evaluation; it no longer trades`);
    case 'archived':
      throw new AppError('account_archived', `account ${account.number} is archived`);
  }
}

export function accountNotFound(): AppError {
  return new AppError('not_found', 'account not found');
}
