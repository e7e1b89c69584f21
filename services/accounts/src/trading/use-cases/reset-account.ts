import { AppError, changedFields, recordAudit, type ScopeFields } from '@propdesk/kit';
import {
  accountNotFound,
  appendEvent,
  lockAccount,
  parseAccountNumber,
  parseScope,
  readAccount,
  refuseStatus,
  revokeSessionsForAccount,
  writeAccountReset,
  type Account,
} from '../core-port';
import { forgetAccountDays } from '../data/account-days';
import { forgetDealStats } from '../data/deal-stats';
import { livePositionsOfAccount } from '../data/positions';
import { clearLock } from '../data/rule-deadlines';
import { schedulePhaseDeadlines } from './time-rules';
import { liquidateInTx } from './liquidate-account';
import { recordEquityPoint, type Markets } from './trading-context';

/** An evaluation-phase account, active or breached; passed/archived: their codes; funded: conflict. */
function requireResettable(account: Account): void {
  refuseStatus(account, ['passed', 'archived'], 'cannot be reset');
  if (account.phase.kind === 'funded') throw new AppError('conflict', `account ${account.number} is in a funded phase, which is not reset`);
}

/**
 * ResetAccount (POST .../reset): a new attempt, as one transaction that also spends one credit
 * (the core's saga; short: 402 insufficient_credits, nothing changed; a test account's costs none): resting orders cancelled,
 * open positions closed at current prices (booked to the old attempt), balance, equity and peak
 * back to the initial balance, active, attempt + 1, trading days counted afresh, executor
 * sessions revoked, account.reset; the time rules (SPEC 15) restart with the attempt and a lock
 * ends. The account row lock serializes it with a breach, a payout or
 * another reset of the same account.
 */
export async function resetAccount(markets: Markets, req: ScopeFields & { number: string }): Promise<Account> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  const lifecycle = ctx.lifecycle;
  if (!lifecycle) throw new AppError('unavailable', 'resets are not available');
  // Refused before any credit is reserved; checked again under the lock.
  const seen = await readAccount(ctx.sequelize, number, scope);
  if (!seen) throw accountNotFound();
  requireResettable(seen);

  // The answer (the account as reset) is read inside the effect transaction: a retry with the same Idempotency-Key replays it.
  const reset = await lifecycle.withOneCredit(scope, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    requireResettable(account);
    const now = ctx.now();
    const live = await livePositionsOfAccount(ctx.sequelize, number, tx);
    await liquidateInTx(ctx, tx, account, live, 'reset');
    await writeAccountReset(ctx.sequelize, tx, number, now);
    await forgetAccountDays(ctx.sequelize, tx, number);
    await forgetDealStats(ctx.sequelize, tx, number);
    await revokeSessionsForAccount(ctx.sequelize, tx, number);
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'account.reset',
      data: { account: number, trader_id: account.traderId, attempt: account.attempt + 1 },
    });
    await recordEquityPoint(ctx, tx, number, now, account.initialBalance, account.initialBalance);
    const after = await readAccount(ctx.sequelize, number, scope, tx);
    if (!after) throw accountNotFound();
    // SPEC 15: the new attempt's time rules count from its start, and the old attempt's lock is over.
    await clearLock(ctx.sequelize, tx, number, null);
    await schedulePhaseDeadlines(ctx.sequelize, tx, [after]);
    const audited = (a: Account) => ({ status: a.status, attempt: a.attempt, balance: a.balance, equity: a.equity });
    await recordAudit(tx, { scope, action: 'account.reset', target: { type: 'account', id: String(number) }, changes: changedFields(audited(account), audited(after)) });
    return after;
  });
  await market.afterAccountChange(number);
  return reset;
}
