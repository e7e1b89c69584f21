import type { TenantScope } from '@propdesk/kit';
import { accountNotFound, readAccount, refuseStatus, type Account, type AccountStatus } from '../core-port';
import type { TradingContext } from './trading-context';

/** An account trades only while active. */
const NOT_TRADING: readonly AccountStatus[] = ['passed', 'breached', 'archived'];

/** Orders, closes and manual breaches need an active account; any other status is refused with its own code. */
export function requireActive(account: Account): void {
  refuseStatus(account, NOT_TRADING, 'no longer trades');
}

/** The scope's account as committed; not_found for a missing one, another organization's or the other mode's. */
export async function requireAccount(ctx: TradingContext, scope: TenantScope, accountNumber: number): Promise<Account> {
  const account = await readAccount(ctx.sequelize, accountNumber, scope);
  if (!account) throw accountNotFound();
  return account;
}
