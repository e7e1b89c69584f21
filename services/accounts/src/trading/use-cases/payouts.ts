import { AppError, createdFields, effectTransaction, MONEY_STEP, recordAudit, requireExactNumber, type CursorCodec, type ScopeFields } from '@propdesk/kit';
import { accountNotFound, appendEvent, lockAccount, parseAccountNumber, parseScope, writePayout, type Account } from '../core-port';
import { dailyProfits, tradingDaysSince } from '../data/daily-profits';
import { insertPayout, listPayouts as listPayoutRows, shiftAccountDays, type Payout } from '../data/payouts';
import { roundMoney } from '../domain/instruments';
import { consistencyHolds } from '../domain/rules';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import type { LiveEngine } from './trading-context';

const notAllowed = (why: string) => new AppError('payout_not_allowed', why);

/**
 * CreatePayout (POST .../payouts {amount?}) on an active funded account, under the account row
 * lock (so it serializes with a breach, a reset or another payout): the amount defaults to the
 * whole closed profit (balance - initial balance) and may not exceed it; the consistency rule
 * must hold and min_trading_days must have passed since the phase started or the last payout.
 * Each refusal is 409 payout_not_allowed saying why. The balance drops by the amount; the split
 * comes from the phase's profit_split_pct; payout.created.
 */
export async function createPayout(engine: LiveEngine, req: ScopeFields & { number: string; amount?: number }): Promise<Payout> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const requested = req.amount === undefined ? undefined : requireExactNumber(req.amount, 'amount', { unit: 'USD', step: MONEY_STEP });
  const ctx = await engine.context();
  const payout = await effectTransaction(ctx.sequelize, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    refuse(account);
    const profit = roundMoney(account.balance - account.initialBalance);
    if (!(profit > 0)) throw notAllowed(`account ${number} has no closed profit to pay out (balance ${account.balance.toFixed(2)}, initial balance ${account.initialBalance.toFixed(2)})`);
    const amount = requested ?? profit;
    if (amount > profit) throw notAllowed(`amount ${amount.toFixed(2)} exceeds the closed profit of ${profit.toFixed(2)}`);
    const since = account.payoutAt && account.payoutAt > account.attemptStartedAt ? account.payoutAt : account.attemptStartedAt;
    const terms = account.terms;
    if (terms.minTradingDays > 0) {
      const days = await tradingDaysSince(ctx.sequelize, number, since, tx);
      if (days < terms.minTradingDays) {
        throw notAllowed(`${days} of the ${terms.minTradingDays} trading days required since ${account.payoutAt ? 'the last payout' : 'the phase started'} have passed`);
      }
    }
    if (terms.consistencyPct !== null) {
      const days = await dailyProfits(ctx.sequelize, number, ctx.rolloverHourUtc, tx, since);
      if (!consistencyHolds(terms, days.map((d) => d.profit))) {
        throw notAllowed(`the consistency rule does not hold: the best trading day's profit is more than ${terms.consistencyPct}% of the total profit`);
      }
    }
    const split = terms.profitSplitPct ?? 80;
    const traderShare = roundMoney((amount * split) / 100);
    const now = ctx.now();
    const created = await insertPayout(ctx.sequelize, tx, {
      accountNumber: number,
      ...scope,
      amount,
      profitSplitPct: split,
      traderShare,
      firmShare: roundMoney(amount - traderShare),
      balanceAfter: roundMoney(account.balance - amount),
      createdAt: now,
    });
    await writePayout(ctx.sequelize, tx, number, amount, now);
    await shiftAccountDays(ctx.sequelize, tx, number, amount);
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'payout.created',
      data: {
        account: number,
        trader_id: account.traderId,
        payout_id: created.id,
        amount,
        profit_split_pct: split,
        trader_share: created.traderShare,
        firm_share: created.firmShare,
        balance_after: created.balanceAfter,
      },
    });
    await recordAudit(tx, {
      scope,
      action: 'payout.request',
      target: { type: 'payout', id: created.id },
      changes: createdFields({ account: number, amount, profit_split_pct: split, trader_share: created.traderShare, firm_share: created.firmShare, balance_after: created.balanceAfter }),
    });
    return created;
  });
  await engine.afterAccountChange(number);
  return payout;
}

function refuse(account: Account): void {
  if (account.phase.kind !== 'funded') throw notAllowed(`account ${account.number} is in an evaluation phase; payouts are for funded accounts`);
  if (account.status !== 'active') throw notAllowed(`account ${account.number} is ${account.status}; payouts are for active funded accounts`);
}

/** ListPayouts (GET .../payouts): oldest first, paged. */
export function listPayouts(engine: LiveEngine, cursors: CursorCodec, req: AccountPageRequest): Promise<Page<Payout>> {
  return accountPage(engine, cursors, { name: 'payouts' }, req, (ctx, number, after, limit) => listPayoutRows(ctx.sequelize, number, after, limit));
}
