import { AppError, effectTransaction, MAX_INITIAL_BALANCE, MONEY_STEP, recordAudit, requireExactNumber, requireText, selectTogether, type ScopeFields } from '@propdesk/kit';
import { accountNotFound, appendEvent, lockAccount, parseAccountNumber, parseScope, refuseStatus, writeAccountMoney } from '../core-port';
import { balanceDealStatements, toDeal, type DealRow } from '../data/deals';
import { announceMoneyChange, livePositionsOfAccount } from '../data/positions';
import { roundMoney } from '../domain/instruments';
import { equityFromPositions, recordEquityPoint, type Markets } from './trading-context';

/** A balance adjustment as answered: the id is its balance deal's. */
export interface Adjustment {
  id: string;
  accountNumber: number;
  amount: number;
  reason: string;
  balanceAfter: number;
  createdAt: Date;
}

/**
 * AdjustBalance (POST .../adjustments {amount, reason}, SPEC 14): an operator's correction, whole
 * cents, positive credits and negative debits, never 0, never below a zero balance. One
 * transaction under the account's row lock: a deal of type balance (profit = amount) in its
 * trades, balance and equity moved by the amount (the peak follows a credit), a point on the
 * equity curve, account.adjusted. An active or breached account (a breach wrongly booked may be
 * corrected before it is reinstated); passed and archived ones are refused with their status's
 * code. Stamped with the time of the account's market (its test clock's on one, SPEC 13). After
 * the commit its market evaluates the account at once, so a debit can breach it.
 */
export async function adjustBalance(markets: Markets, req: ScopeFields & { number: string; amount: number; reason: string }): Promise<Adjustment> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const amount = requireExactNumber(req.amount, 'amount', { unit: 'USD', step: MONEY_STEP, nonZero: true, max: MAX_INITIAL_BALANCE });
  const reason = requireText(req.reason, 'reason', { max: 500 });
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  const adjustment = await effectTransaction(ctx.sequelize, async (tx): Promise<Adjustment> => {
    const account = await lockAccount(ctx.sequelize, tx, number, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    refuseStatus(account, ['passed', 'archived'], 'takes no balance adjustment');
    const balanceAfter = roundMoney(account.balance + amount);
    if (balanceAfter < 0) throw new AppError('invalid_request', `amount ${amount.toFixed(2)} would take the balance of ${account.balance.toFixed(2)} below 0`, 'amount');
    const live = await livePositionsOfAccount(ctx.sequelize, number, tx);
    const equity = roundMoney(equityFromPositions(ctx, balanceAfter, live));
    const now = ctx.now();
    const [row] = await selectTogether<DealRow>(
      ctx.sequelize,
      balanceDealStatements({ accountNumber: number, organizationId: scope.organizationId, amount, reason, balanceAfter, createdAt: now }),
      'SELECT * FROM adjusted',
      tx,
    );
    const deal = toDeal(row);
    await writeAccountMoney(ctx.sequelize, tx, number, { balance: balanceAfter, equity, peakEquity: equity });
    await recordEquityPoint(ctx, tx, number, now, equity, balanceAfter);
    await announceMoneyChange(ctx.sequelize, tx, number);
    await appendEvent(ctx.sequelize, tx, {
      ...scope,
      type: 'account.adjusted',
      data: { account: number, trader_id: account.traderId, adjustment_id: deal.id, amount, reason, balance_after: balanceAfter },
    });
    await recordAudit(tx, {
      scope,
      action: 'account.adjust',
      target: { type: 'account', id: String(number) },
      changes: { balance: [account.balance, balanceAfter], adjustment_id: [null, deal.id], amount: [null, amount], reason: [null, reason] },
    });
    return { id: deal.id, accountNumber: number, amount, reason, balanceAfter, createdAt: now };
  });
  await market.afterAccountChange(number);
  return adjustment;
}
