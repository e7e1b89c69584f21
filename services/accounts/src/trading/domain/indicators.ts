import { roundMoney } from './instruments';

export interface DealTotals {
  trades: number;
  wins: number;
  losses: number;
  grossProfit: number;
  grossLoss: number;
  net: number;
  lots: number;
  averageWin: number | null;
  averageLoss: number | null;
  meanReturn: number | null;
  returnStdDev: number | null;
}

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/**
 * Trading indicators, snake_case for Structs. win_rate is a fraction (0..1); profit_factor is
 * gross profit / |gross loss| (null without losses: infinite); expectancy is the mean profit per
 * trade; sharpe is the per-trade return mean over its sample standard deviation, not annualized
 * (null below two trades or without dispersion).
 */
export function indicators(t: DealTotals | undefined, drawdown: { amount: number; pct: number }): Record<string, number | null> {
  const trades = t?.trades ?? 0;
  const sharpe = t && trades >= 2 && t.meanReturn !== null && t.returnStdDev && t.returnStdDev > 0 ? round(t.meanReturn / t.returnStdDev, 4) : null;
  return {
    trades,
    wins: t?.wins ?? 0,
    losses: t?.losses ?? 0,
    win_rate: trades > 0 ? round((t?.wins ?? 0) / trades, 4) : 0,
    profit_factor: t && t.grossLoss < 0 ? round(t.grossProfit / -t.grossLoss, 4) : null,
    expectancy: trades > 0 ? roundMoney((t?.net ?? 0) / trades) : 0,
    average_win: t?.averageWin !== null && t?.averageWin !== undefined ? roundMoney(t.averageWin) : 0,
    average_loss: t?.averageLoss !== null && t?.averageLoss !== undefined ? roundMoney(t.averageLoss) : 0,
    gross_profit: roundMoney(t?.grossProfit ?? 0),
    gross_loss: roundMoney(t?.grossLoss ?? 0),
    net_profit: roundMoney(t?.net ?? 0),
    max_drawdown: roundMoney(drawdown.amount),
    max_drawdown_pct: round(drawdown.pct, 4),
    sharpe,
    total_lots: round(t?.lots ?? 0, 2),
  };
}
