import { effectTransaction, type ScopeFields } from '@propdesk/kit';
import { findAccount, markArchived } from '../data/accounts';
import { revokeSessionsForAccount } from '../data/executor-sessions';
import { appendEventWithAudit } from '../data/outbox';
import { accountNotFound, type Account } from '../domain/account';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { accountAudit } from './audit-entries';

/** Takes the account out of circulation (no claim, no login); archiving again changes nothing. */
export async function archiveAccount(deps: AccountsDeps, input: ScopeFields & { number: string }): Promise<Account> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (transaction) => {
    const account = await findAccount(sequelize, scope, number, { transaction, forUpdate: true });
    if (!account) throw accountNotFound();
    if (account.status === 'archived') return account;
    await revokeSessionsForAccount(sequelize, transaction, number);
    const updated = await markArchived(sequelize, transaction, number);
    await appendEventWithAudit(
      sequelize,
      transaction,
      { ...scope, type: 'account.archived', data: { account: number, trader_id: updated.traderId, previous_status: account.status, status: 'archived' } },
      [accountAudit(scope, number, 'account.archive', { status: [account.status, updated.status] })],
    );
    return updated;
  });
}
