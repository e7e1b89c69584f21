import { effectTransaction, recordAudits, type AuditChange, type ScopeFields } from '@propdesk/kit';
import { findAccount, setTrader } from '../data/accounts';
import { revokeSessionsForAccount } from '../data/executor-sessions';
import { appendEventWithAudit } from '../data/outbox';
import { findOrCreateTrader } from '../data/traders';
import { accountNotFound, CLOSED_TO_TRADERS, refuseStatus, type Account, type Trader } from '../domain/account';
import { accountNumber, tenantScope, traderInput } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { accountAudit, createdTraderAudit } from './audit-entries';

export interface AssignTraderInput extends ScopeFields {
  number: string;
  name: string;
  email: string;
}

/**
 * Finds or creates the trader by email and makes it the account's holder. A new holder revokes
 * the account's live executor sessions and emits account.assigned, all in one transaction; the
 * same holder again changes nothing.
 */
export async function assignTrader(deps: AccountsDeps, input: AssignTraderInput): Promise<{ account: Account; trader: Trader }> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const who = traderInput(input.name, input.email);
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (transaction) => {
    const account = await findAccount(sequelize, scope, number, { transaction, forUpdate: true });
    if (!account) throw accountNotFound();
    refuseStatus(account, CLOSED_TO_TRADERS, 'cannot be assigned');
    const { trader, created } = await findOrCreateTrader(sequelize, scope, who, transaction);
    const audits: AuditChange[] = created ? [createdTraderAudit(trader)] : [];
    if (account.traderId === trader.id) {
      await recordAudits(transaction, audits);
      return { account, trader };
    }
    await revokeSessionsForAccount(sequelize, transaction, number);
    const updated = await setTrader(sequelize, transaction, number, trader.id);
    audits.push(accountAudit(scope, number, 'account.assign', { trader_id: [account.traderId, trader.id] }));
    await appendEventWithAudit(
      sequelize,
      transaction,
      { ...scope, type: 'account.assigned', data: { account: number, trader_id: trader.id, previous_trader_id: account.traderId } },
      audits,
    );
    return { account: updated, trader };
  });
}
