import type { ScopeFields } from '@propdesk/kit';
import { findAccount } from '../data/accounts';
import { accountNotFound, type Account } from '../domain/account';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** Another organization's or the other mode's account is not_found, exactly like a missing one. */
export async function getAccount(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Account> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const account = await findAccount(deps.sequelize, scope, number);
  if (!account) throw accountNotFound();
  return account;
}
