import { AppError, effectTransaction, recordAudit, requireText, type ScopeFields } from '@propdesk/kit';
import { accountNotFound, appendEvent, lockAccount, parseAccountNumber, parseScope, readAccount, writeReinstated, type Account } from '../core-port';
import { markBreachReinstated } from '../data/flags';
import type { Markets } from './trading-context';

/**
 * ReinstateAccount (POST .../reinstate {reason}, SPEC 14): a breached account is active again in
 * the same attempt, its balance and positions as the breach left them (executor sessions stay
 * revoked: the trader logs in again). The breach stays in the flags, marked with when and why it
 * was reinstated; account.reinstated. Any other status is conflict, nothing changed. After the
 * commit its market (the live engine, or its test clock's, whose time the reinstatement is
 * stamped with, SPEC 13) indexes and evaluates the account at once, like after an order: it
 * trades and is judged again from the next quote (an account still below a limit breaches again).
 */
export async function reinstateAccount(markets: Markets, req: ScopeFields & { number: string; reason: string }): Promise<Account> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const reason = requireText(req.reason, 'reason', { max: 500 });
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  const reinstated = await effectTransaction(ctx.sequelize, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    if (account.status !== 'breached') throw new AppError('conflict', `account ${number} is ${account.status}; only a breached account can be reinstated`);
    const now = ctx.now();
    await writeReinstated(ctx.sequelize, tx, number);
    const breach = await markBreachReinstated(ctx.sequelize, tx, number, account.attempt, now, reason);
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'account.reinstated',
      data: { account: number, trader_id: account.traderId, reason, attempt: account.attempt, breach_rule: breach?.rule ?? null, breach_flag_id: breach?.id ?? null },
    });
    await recordAudit(tx, { scope, action: 'account.reinstate', target: { type: 'account', id: String(number) }, changes: { status: ['breached', 'active'], reason: [null, reason] } });
    const after = await readAccount(ctx.sequelize, number, scope, tx);
    if (!after) throw accountNotFound();
    return after;
  });
  await market.afterAccountChange(number);
  return reinstated;
}
