import { dealBreakdown, readRunningStats } from '../data/deal-stats';
import { indicators } from '../domain/indicators';
import { headroom } from '../domain/rules';
import { liveAccountView } from './account-snapshot';
import type { TradingContext } from './context';

/** Indicators plus the headroom left before each limit (snake_case: the Struct goes to REST as is). */
export async function getAnalytics(ctx: TradingContext, organizationId: string, accountNumber: number): Promise<Record<string, unknown>> {
  const view = await liveAccountView(ctx, organizationId, accountNumber);
  const [{ totals }, running] = await Promise.all([
    dealBreakdown(ctx.sequelize, accountNumber),
    readRunningStats(ctx.sequelize, accountNumber, view.account.initialBalance),
  ]);
  const drawdown = { amount: running.maxDrawdown, pct: running.maxDrawdownPct };
  return {
    ...indicators(totals, drawdown),
    balance: view.snapshot.balance,
    equity: view.snapshot.equity,
    peak_equity: view.snapshot.peakEquity,
    headroom: headroom(view.account.terms, view.snapshot),
  };
}
