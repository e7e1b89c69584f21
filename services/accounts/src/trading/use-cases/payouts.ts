import { AppError, createdFields, effectTransaction, MONEY_STEP, recordAudit, requireExactNumber, typedEvent, type CursorCodec, type ScopeFields, type Sequelize, type Transaction } from '@propdesk/kit';
import { accountNotFound, appendEvent, kycStatusOf, lockAccount, parseAccountNumber, parseScope, writePayout, type Account } from '../core-port';
import { calendarOf } from '../domain/calendar';
import { dailyProfits, tradingDaysSince } from '../data/daily-profits';
import { announceMoneyChange } from '../data/positions';
import { insertPayout, listPayouts as listPayoutRows, pendingPayoutTotal, shiftAccountDays, type Payout } from '../data/payouts';
import { roundMoney } from '../domain/instruments';
import { consistencyHolds } from '../domain/rules';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import type { Markets } from './trading-context';

export const notAllowed = (why: string) => new AppError('payout_not_allowed', why);

/**
 * CreatePayout (POST .../payouts {amount?}) on an active funded account, under the account row
 * lock (so it serializes with a breach, a reset, another payout or a decision on one): the amount
 * defaults to the whole closed profit (balance - initial balance) less what pending payouts
 * reserve, and may not exceed it; the consistency rule must hold, min_trading_days must have
 * passed since the phase started or the last payout, and with requires_kyc the trader must be
 * verified. Each refusal is 409 payout_not_allowed saying why. The split comes from the phase's
 * profit_split_pct.
 *  - Without payout_requires_approval the balance drops by the amount at once: an approved payout
 *    and payout.created.
 *  - With it (SPEC 14) the payout is pending, its amount reserved, the balance unchanged, and
 *    payout.requested; the firm approves or rejects it (payout-decisions.ts).
 */
export async function createPayout(markets: Markets, req: ScopeFields & { number: string; amount?: number }): Promise<Payout> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const requested = req.amount === undefined ? undefined : requireExactNumber(req.amount, 'amount', { unit: 'USD', step: MONEY_STEP });
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  const payout = await effectTransaction(ctx.sequelize, async (tx) => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    refuse(account);
    const terms = account.terms;
    if (terms.requiresKyc) await requireVerifiedTrader(ctx.sequelize, tx, account);
    const profit = roundMoney(account.balance - account.initialBalance);
    if (!(profit > 0)) throw notAllowed(`account ${number} has no closed profit to pay out (balance ${account.balance.toFixed(2)}, initial balance ${account.initialBalance.toFixed(2)})`);
    const reserved = await pendingPayoutTotal(ctx.sequelize, tx, number);
    const available = roundMoney(profit - reserved);
    if (!(available > 0)) throw notAllowed(`pending payouts already reserve ${reserved.toFixed(2)} of the closed profit of ${profit.toFixed(2)}`);
    const amount = requested ?? available;
    if (amount > available) {
      throw notAllowed(
        reserved > 0
          ? `amount ${amount.toFixed(2)} exceeds the ${available.toFixed(2)} left of the closed profit of ${profit.toFixed(2)} after pending payouts of ${reserved.toFixed(2)}`
          : `amount ${amount.toFixed(2)} exceeds the closed profit of ${profit.toFixed(2)}`,
      );
    }
    const since = account.payoutAt && account.payoutAt > account.attemptStartedAt ? account.payoutAt : account.attemptStartedAt;
    if (terms.minTradingDays > 0) {
      const days = await tradingDaysSince(ctx.sequelize, number, since, tx);
      if (days < terms.minTradingDays) {
        throw notAllowed(`${days} of the ${terms.minTradingDays} trading days required since ${account.payoutAt ? 'the last payout' : 'the phase started'} have passed`);
      }
    }
    if (terms.consistencyPct !== null) {
      const days = await dailyProfits(ctx.sequelize, account, calendarOf(terms, ctx.rolloverHourUtc), ctx.now(), tx, since);
      if (!consistencyHolds(terms, days.map((d) => d.profit))) {
        throw notAllowed(`the consistency rule does not hold: the best trading day's profit is more than ${terms.consistencyPct}% of the total profit`);
      }
    }
    const split = terms.profitSplitPct ?? 80;
    const traderShare = roundMoney((amount * split) / 100);
    const now = ctx.now();
    const pending = terms.payoutRequiresApproval;
    const balanceAfter = roundMoney(account.balance - amount);
    const created = await insertPayout(ctx.sequelize, tx, {
      accountNumber: number,
      ...scope,
      amount,
      profitSplitPct: split,
      traderShare,
      firmShare: roundMoney(amount - traderShare),
      status: pending ? 'pending' : 'approved',
      balanceAfter: pending ? null : balanceAfter,
      createdAt: now,
    });
    if (!pending) {
      await writePayout(ctx.sequelize, tx, number, amount, now);
      await shiftAccountDays(ctx.sequelize, tx, number, amount);
      await announceMoneyChange(ctx.sequelize, tx, number);
    }
    const payout = {
      account: number,
      trader_id: account.traderId,
      payout_id: created.id,
      amount,
      profit_split_pct: split,
      trader_share: created.traderShare,
      firm_share: created.firmShare,
    };
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      ...(pending ? typedEvent('payout.requested', { ...payout, status: 'pending' }) : typedEvent('payout.created', { ...payout, balance_after: balanceAfter })),
    });
    await recordAudit(tx, {
      scope,
      action: 'payout.request',
      target: { type: 'payout', id: created.id },
      changes: createdFields({
        account: number,
        status: created.status,
        amount,
        profit_split_pct: split,
        trader_share: created.traderShare,
        firm_share: created.firmShare,
        balance_after: created.balanceAfter,
      }),
    });
    return created;
  });
  if (payout.status !== 'pending') await market.afterAccountChange(number);
  return payout;
}

/** Payouts are for active funded accounts (a request, and again an approval). */
export function refuse(account: Account): void {
  if (account.phase.kind !== 'funded') throw notAllowed(`account ${account.number} is in an evaluation phase; payouts are for funded accounts`);
  if (account.status !== 'active') throw notAllowed(`account ${account.number} is ${account.status}; payouts are for active funded accounts`);
}

/** requires_kyc (SPEC 14): the account's trader must be KYC verified; the refusal names KYC. */
export async function requireVerifiedTrader(sequelize: Sequelize, tx: Transaction, account: Account): Promise<void> {
  const status = await kycStatusOf(sequelize, account.traderId, tx);
  if (status === 'verified') return;
  throw notAllowed(
    status === null
      ? `KYC required: account ${account.number} has no trader, and its program pays out only to a KYC-verified trader`
      : `KYC required: the trader's KYC status is ${status}; this program pays out only to a KYC-verified trader`,
  );
}

/** ListPayouts (GET .../payouts): oldest first, paged. */
export function listPayouts(markets: Markets, cursors: CursorCodec, req: AccountPageRequest): Promise<Page<Payout>> {
  return accountPage(markets, cursors, { name: 'payouts' }, req, (ctx, number, after, limit) => listPayoutRows(ctx.sequelize, number, after, limit));
}
