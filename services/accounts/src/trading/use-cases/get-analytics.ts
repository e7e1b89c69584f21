import { dealTotals, maxDrawdown } from '../data/statistics';
import { indicators } from '../domain/indicators';
import { headroom } from '../domain/rules';
import { liveAccountView } from './account-snapshot';
import type { TradingContext } from './context';

/** Indicators plus the headroom left before each limit (snake_case: the Struct goes to REST as is). */
export async function getAnalytics(ctx: TradingContext, organizationId: string, accountNumber: number): Promise<Record<string, unknown>> {
  const view = await liveAccountView(ctx, organizationId, accountNumber);
  const [totals, drawdown] = await Promise.all([dealTotals(ctx.sequelize, accountNumber), maxDrawdown(ctx.sequelize, accountNumber)]);
  return {
    ...indicators(totals, drawdown),
    balance: view.snapshot.balance,
    equity: view.snapshot.equity,
    peak_equity: view.snapshot.peakEquity,
    headroom: headroom(view.account.terms, view.snapshot),
  };
}
