import { appendEvent } from '../../data/outbox';
import { readAccount, writeAccountMoney, type TradingAccount } from '../data/account-state';
import { countTradingDays, livePositionsOfAccount } from '../data/positions';
import { findBreach, hasPassed, type AccountSnapshot } from '../domain/rules';
import { breachInTx, liquidateInTx } from './breach-account';
import { equityFromPositions, recordEquityPoint, type TradingContext } from './context';

export type EvaluationOutcome = { kind: 'breached' | 'passed' | 'unchanged' | 'inactive'; account: TradingAccount | null };

/**
 * Decides a suspected breach or pass under the account row lock. The engine calls this only
 * when its in-memory marks cross a limit; here the figures are recomputed from the committed
 * positions and balance, so a stale replica, or two replicas seeing the same quote, can never
 * breach twice or breach on a position another replica already closed.
 */
export async function evaluateAccount(
  ctx: TradingContext,
  accountNumber: number,
  hints: { peakEquity: number; startOfDayBalance: number },
): Promise<EvaluationOutcome> {
  return ctx.sequelize.transaction(async (tx) => {
    const account = await readAccount(ctx.sequelize, accountNumber, { tx, lock: true });
    if (!account || account.status !== 'active') return { kind: 'inactive', account };
    const live = await livePositionsOfAccount(ctx.sequelize, accountNumber, tx);
    const equity = equityFromPositions(ctx, account.balance, live);
    const peakEquity = Math.max(account.peakEquity, hints.peakEquity, equity);
    const snapshot: AccountSnapshot = {
      initialBalance: account.initialBalance,
      balance: account.balance,
      equity,
      peakEquity,
      startOfDayBalance: hints.startOfDayBalance,
      tradingDays: await countTradingDays(ctx.sequelize, accountNumber, tx),
    };
    const breach = findBreach(account.terms, snapshot);
    if (breach) {
      const breached = await breachInTx(ctx, tx, account, live, { equity, peakEquity, startOfDayBalance: hints.startOfDayBalance }, breach);
      return { kind: 'breached', account: breached };
    }
    if (hasPassed(account.terms, snapshot)) {
      // Objectives met: the open positions are closed at the current price so the result is booked.
      const balance = await liquidateInTx(ctx, tx, account, live, 'profit_target');
      await writeAccountMoney(ctx.sequelize, tx, accountNumber, { balance, equity: balance, peakEquity: Math.max(peakEquity, balance), status: 'passed' });
      await appendEvent(ctx.sequelize, tx, {
        organizationId: account.organizationId,
        type: 'account.passed',
        data: {
          account: accountNumber,
          trader_id: account.traderId,
          status: 'passed',
          equity,
          balance,
          peak_equity: Math.max(peakEquity, balance),
          trading_days: snapshot.tradingDays,
        },
      });
      await recordEquityPoint(ctx, tx, accountNumber, ctx.now(), balance, balance);
      return { kind: 'passed', account: { ...account, status: 'passed', balance, equity: balance, peakEquity: Math.max(peakEquity, balance) } };
    }
    return { kind: 'unchanged', account: { ...account, equity, peakEquity } };
  });
}
