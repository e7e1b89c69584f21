import type { ScopeFields } from '@propdesk/kit';
import { parseAccountNumber, parseScope } from '../core-port';
import { dealBreakdown, readRunningStats } from '../data/deal-stats';
import { indicators } from '../domain/indicators';
import { headroom } from '../domain/rules';
import { liveAccountView } from './live-account-view';
import type { Markets } from './trading-context';

/** GetAnalytics: indicators plus the headroom left before each limit (snake_case: the Struct goes to REST as is). */
export async function getAnalytics(markets: Markets, req: ScopeFields & { number: string }): Promise<Record<string, unknown>> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const ctx = await (await markets.of(scope, number, 'read')).context();
  const view = await liveAccountView(ctx, scope, number);
  const [{ totals }, running] = await Promise.all([
    dealBreakdown(ctx.sequelize, number),
    readRunningStats(ctx.sequelize, number, view.account.initialBalance),
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
