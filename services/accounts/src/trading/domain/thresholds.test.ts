import { parseTerms } from '../core-port';
import { judge, limitsOf, thresholdsMoveWith, thresholdsOf } from './rules';

/** The engine compares marks with thresholdsOf() and asks judge() only past one: both must agree on every equity. */
describe('thresholds', () => {
  const cases = [
    { name: 'standard, static', terms: parseTerms({}), tradingDays: 5 },
    { name: 'trailing, too few trading days', terms: parseTerms({ totalLossMode: 'trailing', maxTotalLossPct: 6, minTradingDays: 3 }), tradingDays: 1 },
    { name: 'daily loss tighter than total', terms: parseTerms({ maxDailyLossPct: 2, maxTotalLossPct: 10 }), tradingDays: 4 },
  ];
  for (const { name, terms, tradingDays } of cases) {
    it(`${name}: judge() says breached or passed exactly past the thresholds`, () => {
      const limits = limitsOf(terms, { initialBalance: 100_000, startOfDayBalance: 101_000, peakEquity: 103_000 });
      const t = thresholdsOf(terms, limits, tradingDays);
      const disagreements: number[] = [];
      for (let cents = 8_500_000; cents <= 11_500_000; cents += 25) {
        const equity = cents / 100;
        const verdict = judge(terms, limits, equity, tradingDays).kind;
        if ((verdict === 'breached') !== equity < t.breachBelow) disagreements.push(equity);
        if ((verdict === 'passed') !== (equity >= t.breachBelow && equity >= t.passAtOrAbove)) disagreements.push(equity);
      }
      expect(disagreements).toEqual([]);
      // Exactly at a limit is inside the allowance.
      expect(judge(terms, limits, t.breachBelow, tradingDays).kind).not.toBe('breached');
    });
  }

  it('a trailing total loss moves with the peak; a static one does not', () => {
    expect(thresholdsMoveWith(parseTerms({ totalLossMode: 'trailing' }))).toEqual({ peakEquity: true });
    expect(thresholdsMoveWith(parseTerms({}))).toEqual({ peakEquity: false });
  });
});
