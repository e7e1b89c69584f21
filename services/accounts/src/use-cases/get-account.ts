import { findAccount } from '../data/accounts';
import { accountNotFound, type Account } from '../domain/account';
import { accountNumber, organizationId } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** Another organization's account is not_found, exactly like a missing one. */
export async function getAccount(deps: AccountsDeps, input: { organizationId: string; number: string }): Promise<Account> {
  const org = organizationId(input.organizationId);
  const number = accountNumber(input.number);
  const account = await findAccount(deps.sequelize, org, number);
  if (!account) throw accountNotFound();
  return account;
}
