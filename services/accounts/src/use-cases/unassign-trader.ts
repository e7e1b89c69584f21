import { effectTransaction, type ScopeFields } from '@propdesk/kit';
import { findAccount, setTrader } from '../data/accounts';
import { revokeSessionsForAccount } from '../data/executor-sessions';
import { appendEventWithAudit } from '../data/outbox';
import { accountNotFound, type Account } from '../domain/account';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { accountAudit } from './audit-entries';

/** Removes the holder, revoking live sessions; an unassigned account is answered as it is. */
export async function unassignTrader(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Account> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (transaction) => {
    const account = await findAccount(sequelize, scope, number, { transaction, forUpdate: true });
    if (!account) throw accountNotFound();
    if (account.traderId === null) return account;
    await revokeSessionsForAccount(sequelize, transaction, number);
    const updated = await setTrader(sequelize, transaction, number, null);
    await appendEventWithAudit(
      sequelize,
      transaction,
      { ...scope, type: 'account.assigned', data: { account: number, trader_id: null, previous_trader_id: account.traderId } },
      [accountAudit(scope, number, 'account.unassign', { trader_id: [account.traderId, null] })],
    );
    return updated;
  });
}
