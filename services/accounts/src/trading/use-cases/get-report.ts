import type { ScopeFields } from '@propdesk/kit';
import { parseAccountNumber, parseScope } from '../core-port';
import { dealBreakdown, readRunningStats } from '../data/deal-stats';
import { latestDeals, type Deal } from '../data/deals';
import { listFlags } from '../data/flags';
import type { Position } from '../data/positions';
import { dailyHistory, type DealAggregate } from '../data/statistics';
import { indicators } from '../domain/indicators';
import { roundMoney } from '../domain/instruments';
import { floatingProfit } from '../domain/pnl';
import { liveAccountView } from './live-account-view';
import { termsSection } from './terms-section';
import type { LiveEngine, TradingContext } from './trading-context';

/** The report lists the newest deals up to this cap; the complete list pages through ListTrades. */
export const REPORT_DEALS_CAP = 1000;
const REPORT_HISTORY_DAYS = 1000;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function groupSummary(a: DealAggregate): Record<string, unknown> {
  return {
    trades: a.trades,
    wins: a.wins,
    losses: a.losses,
    win_rate: a.trades > 0 ? Math.round((a.wins / a.trades) * 10_000) / 10_000 : 0,
    profit: roundMoney(a.net),
    gross_profit: roundMoney(a.grossProfit),
    gross_loss: roundMoney(a.grossLoss),
    lots: Math.round(a.lots * 100) / 100,
  };
}

/** A deal as REST shows it (kit toRestDeal): a balance adjustment has no position, symbol, side, volume or prices. */
function dealJson(d: Deal): Record<string, unknown> {
  return {
    id: d.id,
    type: d.type,
    position_id: d.positionId,
    symbol: d.symbol,
    side: d.side,
    volume: d.volume,
    open_price: d.openPrice,
    close_price: d.closePrice,
    profit: d.profit,
    opened_at: iso(d.openedAt),
    closed_at: iso(d.closedAt),
    close_reason: d.closeReason,
    balance_after: d.balanceAfter,
    attempt: d.attempt,
  };
}


function positionJson(ctx: TradingContext, p: Position): Record<string, unknown> {
  const floating =
    p.status === 'open' && p.openPrice !== null
      ? roundMoney(floatingProfit({ symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice }, ctx.quote))
      : null;
  return {
    id: p.id,
    status: p.status,
    symbol: p.symbol,
    side: p.side,
    type: p.type,
    volume: p.volume,
    price: p.price,
    open_price: p.openPrice,
    stop_loss: p.stopLoss,
    take_profit: p.takeProfit,
    opened_at: iso(p.openedAt),
    floating_profit: floating,
    created_at: iso(p.createdAt),
  };
}

/**
 * The nine-section report. Aggregates come from summaries kept as deals close (per month, side
 * and symbol; running streaks and drawdown), so the cost does not grow with the number of deals
 * except for the per-day history (one index-ordered pass in SQL); the raw deal list is capped at
 * the newest REPORT_DEALS_CAP (the complete list pages through ListTrades).
 */
export async function getReport(engine: LiveEngine, req: ScopeFields & { number: string }): Promise<Record<string, unknown>> {
  const scope = parseScope(req);
  const accountNumber = parseAccountNumber(req.number);
  const ctx = await engine.context();
  const view = await liveAccountView(ctx, scope, accountNumber);
  const { account, snapshot } = view;
  const seq = ctx.sequelize;
  const [{ totals, bySide, bySymbol, byMonth: monthly }, running, history, recent, breaches] = await Promise.all([
    dealBreakdown(seq, accountNumber),
    readRunningStats(seq, accountNumber, account.initialBalance),
    dailyHistory(seq, accountNumber, REPORT_HISTORY_DAYS),
    // The report covers the current attempt (SPEC 10): its deals and its breach.
    latestDeals(seq, accountNumber, REPORT_DEALS_CAP).then((deals) => deals.filter((d) => d.attempt === account.attempt)),
    listFlags(seq, accountNumber, 0, 200, 'breach').then((flags) => flags.filter((f) => f.attempt === account.attempt)),
  ]);
  const dealsTotal = totals?.trades ?? 0;
  const side = (name: string) => {
    const a = bySide.find((g) => g.key === name);
    return a ? groupSummary(a) : groupSummary({ key: name, trades: 0, wins: 0, losses: 0, grossProfit: 0, grossLoss: 0, net: 0, lots: 0 } as DealAggregate);
  };
  return {
    identity: {
      account: account.number,
      organization_id: account.organizationId,
      livemode: account.livemode,
      status: account.status,
      trader_id: account.traderId,
      program: account.program,
      currency: account.currency,
      initial_balance: account.initialBalance,
      balance: snapshot.balance,
      equity: snapshot.equity,
      peak_equity: snapshot.peakEquity,
      created_at: iso(account.createdAt),
      generated_at: ctx.now().toISOString(),
    },
    balance_equity_history: history.map((h) => ({
      day: h.day,
      balance: h.balance,
      equity: h.equityClose,
      equity_low: h.equityLow,
      equity_high: h.equityHigh,
    })),
    monthly_statement: monthly.map((m) => ({
      month: m.key,
      ...groupSummary(m),
      start_balance: m.startBalance,
      end_balance: m.endBalance,
    })),
    indicators: indicators(totals, { amount: running.maxDrawdown, pct: running.maxDrawdownPct }),
    streaks: {
      max_consecutive_wins: running.maxWins,
      max_consecutive_losses: running.maxLosses,
      best_run_profit: roundMoney(running.bestRun),
      worst_run_loss: roundMoney(running.worstRun),
      current_streak: {
        kind: running.currentLength === 0 ? 'none' : running.currentSign > 0 ? 'win' : running.currentSign < 0 ? 'loss' : 'flat',
        length: running.currentLength,
      },
    },
    long_short: { long: side('buy'), short: side('sell') },
    by_instrument: bySymbol.map((s) => ({ symbol: s.key, ...groupSummary(s) })),
    deals_and_positions: {
      deals: recent.map(dealJson),
      deals_total: dealsTotal,
      deals_truncated: dealsTotal > recent.length,
      note:
        dealsTotal > recent.length
          ? `the newest ${recent.length} of ${dealsTotal} deals; page through /trades for all of them`
          : 'every deal, newest first',
      open_positions: view.live.filter((p) => p.status === 'open').map((p) => positionJson(ctx, p)),
      pending_orders: view.live.filter((p) => p.status === 'pending').map((p) => positionJson(ctx, p)),
    },
    terms: termsSection(view, breaches),
  };
}
