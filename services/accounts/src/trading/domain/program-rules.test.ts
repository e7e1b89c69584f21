import { parseTerms, type Terms } from '../core-port';
import { tradingDayOf, tradingDayStart } from './calendar';
import {
  consistencyHolds,
  dailyLossLimit,
  evaluate,
  followPeak,
  headroom,
  judge,
  limitsOf,
  startDayLimits,
  totalLossLimit,
  warningPeriod,
  warningsAt,
  type AccountSnapshot,
} from './rules';

/** Terms of a custom phase: 5% daily, 10% total, 10% target unless told otherwise. */
const terms = (over: Partial<Terms>): Terms =>
  parseTerms({ maxDailyLossPct: 5, maxTotalLossPct: 10, profitTargetPct: 10, minTradingDays: 0, warningAtPct: 80, ...over });

const base: AccountSnapshot = { initialBalance: 100_000, balance: 100_000, equity: 100_000, peakEquity: 100_000, startOfDayBalance: 100_000, tradingDays: 0 };

describe('daily-loss basis', () => {
  const day = { initialBalance: 100_000, startOfDayBalance: 102_000, startOfDayEquity: 99_000 };
  it('balance: the balance at the start of the day', () => {
    expect(dailyLossLimit(terms({ dailyLossBasis: 'balance' }), day)).toBe(97_000);
  });
  it('equity: the equity at the start of the day', () => {
    expect(dailyLossLimit(terms({ dailyLossBasis: 'equity' }), day)).toBe(94_000);
  });
  it('higher: the higher of the two', () => {
    expect(dailyLossLimit(terms({ dailyLossBasis: 'higher' }), day)).toBe(97_000);
    expect(dailyLossLimit(terms({ dailyLossBasis: 'higher' }), { ...day, startOfDayEquity: 104_000 })).toBe(99_000);
  });
  it('a breach one cent below the limit names the basis', () => {
    const verdict = evaluate(terms({ dailyLossBasis: 'equity' }), { ...base, startOfDayBalance: 100_000, startOfDayEquity: 101_000, equity: 95_999.99 });
    expect(verdict).toMatchObject({ kind: 'breached', breach: { rule: 'max_daily_loss', limit: 96_000 } });
    expect(verdict.kind === 'breached' && verdict.breach.reason).toContain('equity at the start of the day');
  });

  it('resets at the day boundary (injected clock): the new day measures from its own start', () => {
    const rollover = 22;
    const t = terms({ dailyLossBasis: 'balance' });
    let now = new Date('2026-03-10T21:59:59Z');
    const limits = limitsOf(t, { ...base, startOfDayBalance: 100_000 });
    let day = tradingDayOf(now, rollover);
    // Late in the day the account lost 4,000 (closed): inside the 5,000 allowance.
    expect(judge(t, limits, 96_000, 0).kind).toBe('none');
    // One second later the next trading day starts from the balance at its start.
    now = new Date(now.getTime() + 1000);
    expect(tradingDayOf(now, rollover)).not.toBe(day);
    expect(tradingDayStart(now, rollover).toISOString()).toBe('2026-03-10T22:00:00.000Z');
    day = tradingDayOf(now, rollover);
    startDayLimits(t, limits, { initialBalance: 100_000, startOfDayBalance: 96_000 });
    expect(limits.dailyLoss).toBe(91_000);
    expect(judge(t, limits, 92_000, 0).kind).toBe('none');
    // ... and the total-loss floor (static) still holds across days.
    expect(judge(t, limits, 89_999, 0)).toMatchObject({ kind: 'breached', breach: { rule: 'max_total_loss' } });
    expect(day).toBe('2026-03-10');
  });
});

describe('total-loss modes', () => {
  it('static: initial minus the allowance, whatever the peak', () => {
    expect(totalLossLimit(terms({ totalLossMode: 'static' }), { initialBalance: 100_000, peakEquity: 130_000 })).toBe(90_000);
  });
  it('trailing: follows the peak equity intraday', () => {
    const t = terms({ totalLossMode: 'trailing' });
    expect(totalLossLimit(t, { initialBalance: 100_000, peakEquity: 104_000 })).toBe(94_000);
    const limits = limitsOf(t, base);
    followPeak(t, limits, 100_000, 106_000);
    expect(limits.totalLoss).toBe(96_000);
    expect(judge(t, limits, 95_999, 0)).toMatchObject({ kind: 'breached', breach: { rule: 'max_total_loss', limit: 96_000 } });
  });
  it('trailing never below the static floor (a peak under the initial balance)', () => {
    expect(totalLossLimit(terms({ totalLossMode: 'trailing' }), { initialBalance: 100_000, peakEquity: 98_000 })).toBe(90_000);
  });
  it('trailing_eod: from the highest end-of-day balance, not the intraday peak', () => {
    const t = terms({ totalLossMode: 'trailing_eod' });
    expect(totalLossLimit(t, { initialBalance: 100_000, peakEquity: 120_000, highestEodBalance: 105_000 })).toBe(95_000);
    const limits = limitsOf(t, { ...base, peakEquity: 120_000, highestEodBalance: 105_000 });
    followPeak(t, limits, 100_000, 125_000);
    expect(limits.totalLoss).toBe(95_000);
  });
  it('trailing_stops_at_initial: the floor rises to the initial balance and no further', () => {
    const locked = terms({ totalLossMode: 'trailing', trailingStopsAtInitial: true });
    expect(totalLossLimit(locked, { initialBalance: 100_000, peakEquity: 108_000 })).toBe(98_000);
    expect(totalLossLimit(locked, { initialBalance: 100_000, peakEquity: 115_000 })).toBe(100_000);
    expect(totalLossLimit(terms({ totalLossMode: 'trailing' }), { initialBalance: 100_000, peakEquity: 115_000 })).toBe(105_000);
    const eod = terms({ totalLossMode: 'trailing_eod', trailingStopsAtInitial: true });
    expect(totalLossLimit(eod, { initialBalance: 100_000, peakEquity: 0, highestEodBalance: 140_000 })).toBe(100_000);
  });
});

describe('passing', () => {
  it('a funded phase never passes', () => {
    expect(evaluate(terms({ kind: 'funded', profitTargetPct: null }), { ...base, equity: 1_000_000 }).kind).toBe('none');
  });
  it('min_trading_days', () => {
    const t = terms({ minTradingDays: 3 });
    expect(evaluate(t, { ...base, equity: 110_000, tradingDays: 2 }).kind).toBe('none');
    expect(evaluate(t, { ...base, equity: 110_000, tradingDays: 3 }).kind).toBe('passed');
  });
  it('consistency_pct: the best day at most this share of the total profit', () => {
    const t = terms({ consistencyPct: 40 });
    expect(consistencyHolds(t, [4_000, 3_000, 3_000])).toBe(true);
    expect(consistencyHolds(t, [4_001, 3_000, 2_999])).toBe(false);
    expect(consistencyHolds(t, [10_000])).toBe(false);
    expect(consistencyHolds(t, [-1_000, 500])).toBe(false);
    expect(consistencyHolds(terms({ consistencyPct: null }), [10_000])).toBe(true);
    expect(evaluate(t, { ...base, equity: 110_000 }, false).kind).toBe('none');
    expect(evaluate(t, { ...base, equity: 110_000 }, true).kind).toBe('passed');
  });
});

describe('warnings', () => {
  it('warning_at_pct of the daily and total allowances', () => {
    const t = terms({ warningAtPct: 80 });
    const limits = limitsOf(t, base);
    expect(limits.warnDaily).toBe(96_000);
    expect(limits.warnTotal).toBe(92_000);
    expect(warningsAt(t, limits, 96_000, 100_000)).toEqual([]);
    expect(warningsAt(t, limits, 95_900, 100_000)).toEqual([{ rule: 'max_daily_loss', usedPct: 82, limit: 95_000 }]);
    const both = warningsAt(t, { ...limits, dailyLoss: 91_000, warnDaily: 92_000 }, 91_500, 100_000);
    expect(both.map((w) => w.rule)).toEqual(['max_daily_loss', 'max_total_loss']);
  });
  it('follow a trailing floor; none when warning_at_pct is null', () => {
    const t = terms({ totalLossMode: 'trailing' });
    const limits = limitsOf(t, base);
    followPeak(t, limits, 100_000, 110_000);
    expect(limits.warnTotal).toBe(102_000);
    const quiet = limitsOf(terms({ warningAtPct: null }), base);
    expect(warningsAt(terms({ warningAtPct: null }), quiet, 90_001, 100_000)).toEqual([]);
  });
  it('once per trading day (daily) and once per attempt (total)', () => {
    expect(warningPeriod('max_daily_loss', '2026-03-10')).toBe('2026-03-10');
    expect(warningPeriod('max_total_loss', '2026-03-10')).toBe('attempt');
  });
});

describe('headroom follows the phase', () => {
  it('with its basis and mode', () => {
    const h = headroom(terms({ dailyLossBasis: 'equity', totalLossMode: 'trailing' }), { ...base, startOfDayEquity: 101_000, peakEquity: 103_000, equity: 100_000 });
    expect(h).toMatchObject({ daily_loss_limit: 96_000, daily_loss_remaining: 4_000, total_loss_limit: 93_000, total_loss_remaining: 7_000, daily_loss_basis: 'equity', total_loss_mode: 'trailing' });
    expect(headroom(terms({ kind: 'funded', profitTargetPct: null }), base).profit_target_remaining).toBeNull();
  });
});
