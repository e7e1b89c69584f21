import { advanceRunningStats, initialRunningStats, withDrawdown } from './running-stats';

describe('running deal statistics', () => {
  it('tracks streaks and the balance drawdown one deal at a time', () => {
    let s = initialRunningStats(100_000);
    for (const [profit, balance] of [
      [100, 100_100],
      [200, 100_300],
      [-50, 100_250],
      [-150, 100_100],
      [-100, 100_000],
      [300, 100_300],
    ] as const) {
      s = advanceRunningStats(s, profit, balance);
    }
    expect(s).toMatchObject({
      maxWins: 2,
      maxLosses: 3,
      bestRun: 300,
      worstRun: -300,
      currentSign: 1,
      currentLength: 1,
      currentTotal: 300,
      peakBalance: 100_300,
      maxDrawdown: 300,
    });
    expect(s.maxDrawdownPct).toBeCloseTo((300 / 100_300) * 100, 6);
  });

  it('an equity mark deeper than any balance fall raises the drawdown, a shallower one does not', () => {
    const s = withDrawdown(initialRunningStats(100_000), 101_000, 99_000);
    expect(s.maxDrawdown).toBe(2000);
    expect(withDrawdown(s, 101_000, 100_000)).toBe(s);
  });
});
