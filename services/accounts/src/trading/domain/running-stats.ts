import { roundMoney } from './instruments';

/**
 * What the report needs about the sequence of an account's deals, kept up to date one deal at a
 * time (under the account lock) so a report never rescans 100,000 deals: the current and
 * longest runs of wins and losses, and the deepest fall of the balance (or of marked equity)
 * from its running peak.
 */
export interface RunningStats {
  currentSign: -1 | 0 | 1;
  currentLength: number;
  currentTotal: number;
  maxWins: number;
  maxLosses: number;
  bestRun: number;
  worstRun: number;
  peakBalance: number;
  maxDrawdown: number;
  maxDrawdownPct: number;
}

export function initialRunningStats(initialBalance: number): RunningStats {
  return { currentSign: 0, currentLength: 0, currentTotal: 0, maxWins: 0, maxLosses: 0, bestRun: 0, worstRun: 0, peakBalance: initialBalance, maxDrawdown: 0, maxDrawdownPct: 0 };
}

/** Folds one more drawdown observation (a running peak and a value below it) into the stats. */
export function withDrawdown(stats: RunningStats, peak: number, value: number): RunningStats {
  const dd = roundMoney(peak - value);
  if (dd <= stats.maxDrawdown) return stats;
  return { ...stats, maxDrawdown: dd, maxDrawdownPct: peak > 0 ? Math.max(stats.maxDrawdownPct, (dd / peak) * 100) : stats.maxDrawdownPct };
}

/** The stats after one more deal closed with `profit`, leaving the balance at `balanceAfter`. */
export function advanceRunningStats(stats: RunningStats, profit: number, balanceAfter: number): RunningStats {
  const sign = (Math.sign(profit) as -1 | 0 | 1) || 0;
  const continues = sign === stats.currentSign && stats.currentLength > 0;
  const currentLength = continues ? stats.currentLength + 1 : 1;
  const currentTotal = roundMoney((continues ? stats.currentTotal : 0) + profit);
  const next: RunningStats = {
    ...stats,
    currentSign: sign,
    currentLength,
    currentTotal,
    maxWins: sign === 1 ? Math.max(stats.maxWins, currentLength) : stats.maxWins,
    maxLosses: sign === -1 ? Math.max(stats.maxLosses, currentLength) : stats.maxLosses,
    bestRun: sign === 1 ? Math.max(stats.bestRun, currentTotal) : stats.bestRun,
    worstRun: sign === -1 ? Math.min(stats.worstRun, currentTotal) : stats.worstRun,
    peakBalance: Math.max(stats.peakBalance, balanceAfter),
  };
  return withDrawdown(next, next.peakBalance, balanceAfter);
}
