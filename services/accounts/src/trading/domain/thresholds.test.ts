import { parseTerms } from '../core-port';
import { followPeak, judge, limitsOf, startDayLimits, thresholdsMoveWith, thresholdsOf, warningsAt } from './rules';

/** The engine compares marks with thresholdsOf() and asks judge() / warningsAt() only past one: they must agree on every equity. */
describe('thresholds', () => {
  const cases = [
    { name: 'standard, static', terms: parseTerms({}), tradingDays: 5 },
    { name: 'trailing, too few trading days', terms: parseTerms({ totalLossMode: 'trailing', maxTotalLossPct: 6, minTradingDays: 3 }), tradingDays: 1 },
    { name: 'daily loss tighter than total', terms: parseTerms({ maxDailyLossPct: 2, maxTotalLossPct: 10 }), tradingDays: 4 },
    {
      name: 'equity basis, trailing stopping at the initial balance, warnings at 70%',
      terms: parseTerms({ dailyLossBasis: 'equity', totalLossMode: 'trailing', trailingStopsAtInitial: true, maxTotalLossPct: 2, warningAtPct: 70 }),
      tradingDays: 5,
    },
    { name: 'higher basis, trailing_eod, warnings at 50%', terms: parseTerms({ dailyLossBasis: 'higher', totalLossMode: 'trailing_eod', warningAtPct: 50 }), tradingDays: 5 },
    { name: 'funded (no target), warnings at 80%', terms: parseTerms({ profitTargetPct: null, warningAtPct: 80 }), tradingDays: 5 },
  ];
  const state = { initialBalance: 100_000, startOfDayBalance: 101_000, startOfDayEquity: 100_500, highestEodBalance: 102_000, peakEquity: 103_000 };
  for (const { name, terms, tradingDays } of cases) {
    it(`${name}: judge() and warningsAt() answer exactly past the thresholds`, () => {
      const limits = limitsOf(terms, state);
      const t = thresholdsOf(terms, limits, tradingDays);
      const disagreements: Array<[string, number]> = [];
      for (let cents = 8_500_000; cents <= 11_500_000; cents += 25) {
        const equity = cents / 100;
        const verdict = judge(terms, limits, equity, tradingDays).kind;
        if ((verdict === 'breached') !== equity < t.breachBelow) disagreements.push(['breach', equity]);
        if ((verdict === 'passed') !== (equity >= t.breachBelow && equity >= t.passAtOrAbove)) disagreements.push(['pass', equity]);
        if (warningsAt(terms, limits, equity, state.initialBalance).length > 0 !== equity < t.warnBelow) disagreements.push(['warn', equity]);
      }
      expect(disagreements).toEqual([]);
      // Exactly at a limit is inside the allowance.
      expect(judge(terms, limits, t.breachBelow, tradingDays).kind).not.toBe('breached');
    });
  }

  it('warnings come from warning_at_pct: none without it, before the breach with it', () => {
    expect(thresholdsOf(parseTerms({}), limitsOf(parseTerms({}), state), 5).warnBelow).toBe(-Infinity);
    const terms = parseTerms({ maxDailyLossPct: 5, maxTotalLossPct: 10, warningAtPct: 80 });
    const t = thresholdsOf(terms, limitsOf(terms, { ...state, startOfDayBalance: 100_000 }), 5);
    // 80% of the 5,000 daily allowance used: 96,000.
    expect(t.warnBelow).toBe(96_000);
    expect(t.breachBelow).toBe(95_000);
  });

  it('a trailing floor and its warning move with the peak and stop at the initial balance when told', () => {
    const terms = parseTerms({ totalLossMode: 'trailing', maxTotalLossPct: 5, maxDailyLossPct: 50, trailingStopsAtInitial: true, warningAtPct: 50 });
    const limits = limitsOf(terms, { ...state, peakEquity: 100_000 });
    expect(thresholdsOf(terms, limits, 5).breachBelow).toBe(95_000);
    followPeak(terms, limits, 100_000, 103_000);
    expect(thresholdsOf(terms, limits, 5)).toMatchObject({ breachBelow: 98_000, warnBelow: 100_500 });
    followPeak(terms, limits, 100_000, 110_000);
    expect(thresholdsOf(terms, limits, 5).breachBelow).toBe(100_000);
  });

  it('trailing_eod and the daily basis move at the start of a day', () => {
    const terms = parseTerms({ totalLossMode: 'trailing_eod', dailyLossBasis: 'equity', maxTotalLossPct: 10, maxDailyLossPct: 5 });
    const limits = limitsOf(terms, { ...state, highestEodBalance: 100_000 });
    startDayLimits(terms, limits, { initialBalance: 100_000, startOfDayBalance: 101_000, startOfDayEquity: 99_000 });
    expect(thresholdsOf(terms, limits, 5).breachBelow).toBe(94_000);
  });

  it('a trailing total loss moves with the peak; static and trailing_eod do not', () => {
    expect(thresholdsMoveWith(parseTerms({ totalLossMode: 'trailing' }))).toEqual({ peakEquity: true });
    expect(thresholdsMoveWith(parseTerms({ totalLossMode: 'trailing_eod' }))).toEqual({ peakEquity: false });
    expect(thresholdsMoveWith(parseTerms({}))).toEqual({ peakEquity: false });
  });
});
