import { AppError, effectTransaction, type ScopeFields } from '@propdesk/kit';
import { lockNextClaimable, setTrader } from '../data/accounts';
import { revokeSessionsForAccount } from '../data/executor-sessions';
import { appendEventWithAudit } from '../data/outbox';
import { findOrCreateTrader } from '../data/traders';
import type { Account, Trader } from '../domain/account';
import { tenantScope, traderInput } from '../domain/validation';
import type { AccountsDeps } from '../deps';
import { accountAudit, createdTraderAudit } from './audit-entries';

/**
 * Assigns the lowest-numbered active unassigned account of the organization and mode to the
 * trader (of the same mode). SKIP LOCKED lets concurrent claimers each take a different account
 * without waiting on one another.
 */
export async function claimAccount(
  deps: AccountsDeps,
  input: ScopeFields & { name: string; email: string },
): Promise<{ account: Account; trader: Trader }> {
  const scope = tenantScope(input);
  const who = traderInput(input.name, input.email);
  const { sequelize } = deps;
  return effectTransaction(sequelize, async (transaction) => {
    const account = await lockNextClaimable(sequelize, transaction, scope);
    if (!account) throw new AppError('no_unassigned_accounts', 'no unassigned active account is left');
    const { trader, created } = await findOrCreateTrader(sequelize, scope, who, transaction);
    // Credentials work while unassigned, so someone may hold a session from before the claim.
    await revokeSessionsForAccount(sequelize, transaction, account.number);
    const updated = await setTrader(sequelize, transaction, account.number, trader.id);
    await appendEventWithAudit(
      sequelize,
      transaction,
      { ...scope, type: 'account.assigned', data: { account: account.number, trader_id: trader.id, previous_trader_id: null } },
      [...(created ? [createdTraderAudit(trader)] : []), accountAudit(scope, account.number, 'account.claim', { trader_id: [null, trader.id] })],
    );
    return { account: updated, trader };
  });
}
