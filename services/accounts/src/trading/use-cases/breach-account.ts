import { effectTransaction, recordAudit, requireText, type ScopeFields } from '@propdesk/kit';
import { accountNotFound, lockAccount, parseAccountNumber, parseScope, readAccount, type Account } from '../core-port';
import { startOfDayBalances } from '../data/account-days';
import { livePositionsOfAccount } from '../data/positions';
import { calendarOf } from '../domain/calendar';
import { requireActive } from './account-access';
import { applyBreach } from './apply-breach';
import { equityFromPositions, type Markets } from './trading-context';

/**
 * BreachAccount (POST .../breach {reason}): staff end an evaluation by hand. The same breach the
 * rules apply (apply-breach.ts), with rule manual; answers the account as committed.
 */
export async function breachAccount(markets: Markets, req: ScopeFields & { number: string; reason: string }): Promise<Account> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  const reason = requireText(req.reason, 'reason', { max: 500 });
  const now = ctx.now();
  // Read before the transaction: it may insert today's row, and the locked transaction uses one connection only.
  const known = market.startOfDayBalance(number);
  const before = known === null ? await readAccount(ctx.sequelize, number, scope) : null;
  const calendar = before && calendarOf(before.terms, ctx.rolloverHourUtc);
  const startOfDayBalance =
    known ?? (calendar && (await startOfDayBalances(ctx.sequelize, [number], calendar.dayOf(now), calendar.startOf(now))).get(number)?.balance) ?? null;
  // Answers the account as this transaction committed it (the effect transaction's answer).
  const breached = await effectTransaction(ctx.sequelize, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    requireActive(account);
    const live = await livePositionsOfAccount(ctx.sequelize, number, tx);
    const equity = equityFromPositions(ctx, account.balance, live);
    const observed = { equity, peakEquity: Math.max(account.peakEquity, equity), startOfDayBalance };
    await applyBreach(ctx, tx, account, live, observed, { rule: 'manual', limit: null, reason });
    const after = await readAccount(ctx.sequelize, number, scope, tx);
    if (!after) throw accountNotFound();
    await recordAudit(tx, { scope, action: 'account.breach', target: { type: 'account', id: String(number) }, changes: { status: [account.status, after.status], reason: [null, reason] } });
    return after;
  });
  await market.afterAccountChange(number);
  return breached;
}
