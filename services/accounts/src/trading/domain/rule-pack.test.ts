import { PROGRAMS, type ProgramTerms } from '../../domain/programs';
import type { Quote } from './instruments';
import { blackoutEvent, inactiveAt, lossAtStop, newsCurrencies, preOrderViolations, sessionEndAfter, timeLimitAt, withinTradingHours, worstCase, type OrderFacts, type RuleAccount } from './rule-pack';
import { judge, limitsOf, thresholdsOf } from './rules';

const terms = (over: Partial<ProgramTerms> = {}): ProgramTerms => ({ ...PROGRAMS.standard, ...over });
const account = (over: Partial<ProgramTerms> = {}, halted = false): RuleAccount => ({ number: 1000001, tradingHalted: halted, initialBalance: 100_000, terms: terms(over) });
const now = new Date('2026-03-10T14:00:00Z');
const facts = (over: Partial<OrderFacts> = {}): OrderFacts => ({
  now,
  livePositions: 0,
  tradesToday: 0,
  lock: null,
  news: [],
  lossAtStop: null,
  margin: { required: 1000, equity: 100_000, used: 0 },
  ...over,
});
const order = { symbol: 'EURUSD', volume: 1, stopLoss: undefined as number | undefined };
const rules = (a: RuleAccount, f: OrderFacts, o = order) => preOrderViolations(o, a, f).map((v) => v.rule);
const quotes = (q: Record<string, { bid: number; ask: number }>) => (symbol: string): Quote | undefined => (q[symbol] ? { symbol, ...q[symbol], time: now } : undefined);

describe('the pre-order rules of SPEC 15, each at its edges', () => {
  it('lets everything through when every rule is off (the built-ins, and programs from before)', () => {
    expect(rules(account(), facts({ livePositions: 500, tradesToday: 500 }))).toEqual([]);
  });

  it('max_open_positions: open + pending may reach the cap, not exceed it', () => {
    const a = account({ maxOpenPositions: 3 });
    expect(rules(a, facts({ livePositions: 1 }))).toEqual([]);
    expect(rules(a, facts({ livePositions: 2 }))).toEqual([]);
    expect(rules(a, facts({ livePositions: 3 }))).toEqual(['max_open_positions']);
  });

  it('max_trades_per_day: the trading day holds at most that many', () => {
    const a = account({ maxTradesPerDay: 2 });
    expect(rules(a, facts({ tradesToday: 1 }))).toEqual([]);
    expect(rules(a, facts({ tradesToday: 2 }))).toEqual(['max_trades_per_day']);
    expect(preOrderViolations(order, a, facts({ tradesToday: 2 }))[0].reason).toMatch(/^max_trades_per_day \(2\)/);
  });

  it('stop_loss_required refuses an order without a stop loss only', () => {
    const a = account({ stopLossRequired: true });
    expect(rules(a, facts())).toEqual(['stop_loss_required']);
    expect(rules(a, facts({ lossAtStop: 10 }), { ...order, stopLoss: 1.08 })).toEqual([]);
  });

  it('max_risk_per_trade: a loss at the stop up to the allowance passes, a cent more does not, no stop never', () => {
    const a = account({ maxRiskPerTradePct: 1 }); // 1,000 of 100,000
    const withStop = { ...order, stopLoss: 1.08 };
    expect(rules(a, facts({ lossAtStop: 999.99 }), withStop)).toEqual([]);
    expect(rules(a, facts({ lossAtStop: 1000 }), withStop)).toEqual([]);
    expect(rules(a, facts({ lossAtStop: 1000.01 }), withStop)).toEqual(['max_risk_per_trade']);
    expect(rules(a, facts())).toEqual(['max_risk_per_trade']);
  });

  it('news_blackout: from the minutes before the event to the minutes after, both ends included', () => {
    const a = account({ newsBlackoutMinutes: 15 });
    const event = (offsetMs: number) => [{ title: 'NFP', time: new Date(now.getTime() + offsetMs) }];
    const m = 60_000;
    expect(rules(a, facts({ news: event(15 * m + 1) }))).toEqual([]);
    expect(rules(a, facts({ news: event(15 * m) }))).toEqual(['news_blackout']);
    expect(rules(a, facts({ news: event(0) }))).toEqual(['news_blackout']);
    expect(rules(a, facts({ news: event(-15 * m) }))).toEqual(['news_blackout']);
    expect(rules(a, facts({ news: event(-15 * m - 1) }))).toEqual([]);
    expect(blackoutEvent(event(-15 * m - 1), now, 16)).toBeDefined();
  });

  it("a symbol's news currencies are its two currencies, a metal's or an index's none", () => {
    expect(newsCurrencies('EURUSD')).toEqual(['EUR', 'USD']);
    expect(newsCurrencies('XAUUSD')).toEqual(['USD']);
    expect(newsCurrencies('USDJPY')).toEqual(['USD', 'JPY']);
  });

  it('trading_hours: start included, end excluded, wall time of the zone across daylight saving', () => {
    const hours = { start: '09:30', end: '16:00', timezone: 'America/New_York' };
    // Winter (EST, UTC-5): 09:30 is 14:30 UTC.
    expect(withinTradingHours(hours, new Date('2026-01-15T14:29:59Z'))).toBe(false);
    expect(withinTradingHours(hours, new Date('2026-01-15T14:30:00Z'))).toBe(true);
    expect(withinTradingHours(hours, new Date('2026-01-15T20:59:59Z'))).toBe(true);
    expect(withinTradingHours(hours, new Date('2026-01-15T21:00:00Z'))).toBe(false);
    // Summer (EDT, UTC-4): the same wall times an hour earlier in UTC.
    expect(withinTradingHours(hours, new Date('2026-07-15T13:30:00Z'))).toBe(true);
    expect(withinTradingHours(hours, new Date('2026-07-15T20:00:00Z'))).toBe(false);
    expect(rules(account({ tradingHours: hours }), facts({ now: new Date('2026-07-15T20:00:00Z') }))).toEqual(['trading_hours']);
  });

  it('a lock refuses orders until its end, naming its rule', () => {
    const until = new Date(now.getTime() + 1);
    expect(rules(account(), facts({ lock: { rule: 'daily_lock', until } }))).toEqual(['daily_lock']);
    expect(rules(account(), facts({ lock: { rule: 'daily_profit_cap', until } }))).toEqual(['daily_profit_cap']);
    expect(rules(account(), facts({ lock: { rule: 'daily_lock', until: now } }))).toEqual([]);
  });

  it('lists every rule an order breaks, halted first, insufficient margin last', () => {
    const a = account({ maxOpenPositions: 1, maxTradesPerDay: 1, stopLossRequired: true, maxRiskPerTradePct: 1, maxLotsPerOrder: 0.5 }, true);
    expect(rules(a, facts({ livePositions: 1, tradesToday: 1, margin: { required: 200_000, equity: 100_000, used: 0 } }))).toEqual([
      'halted',
      'max_lots_per_order',
      'stop_loss_required',
      'max_risk_per_trade',
      'max_open_positions',
      'max_trades_per_day',
      'insufficient_margin',
    ]);
  });

  it('prices the loss at the stop from the fill price, in USD (a JPY pair at its own stop price)', () => {
    const q = quotes({ EURUSD: { bid: 1.1, ask: 1.1001 }, USDJPY: { bid: 150, ask: 150.02 } });
    expect(lossAtStop({ symbol: 'EURUSD', side: 'buy', volume: 1, stopLoss: 1.095 }, 1.1001, q)).toBe(510);
    expect(lossAtStop({ symbol: 'EURUSD', side: 'sell', volume: 0.5, stopLoss: 1.102 }, 1.1, q)).toBe(100);
    expect(lossAtStop({ symbol: 'USDJPY', side: 'buy', volume: 1, stopLoss: 149 }, 150.02, q)).toBe(684.56);
    expect(lossAtStop({ symbol: 'EURUSD', side: 'buy', volume: 1, stopLoss: undefined }, 1.1001, q)).toBeNull();
  });
});

describe('the engine rules of SPEC 15: the daily lock and the profit cap', () => {
  const day = { initialBalance: 100_000, startOfDayBalance: 100_000, peakEquity: 100_000 };

  it('daily_loss_action lock locks instead of breaching below the daily limit; the total loss still breaches', () => {
    const lock = terms({ dailyLossAction: 'lock' });
    const limits = limitsOf(lock, day);
    expect(judge(lock, limits, 95_000, 0).kind).toBe('none');
    expect(judge(lock, limits, 94_999.99, 0)).toMatchObject({ kind: 'locked', lock: { rule: 'daily_lock', limit: 95_000 } });
    expect(judge(terms(), limitsOf(terms(), day), 94_999.99, 0)).toMatchObject({ kind: 'breached', breach: { rule: 'max_daily_loss' } });
    const deep = limitsOf(lock, { ...day, startOfDayBalance: 92_000 });
    expect(judge(lock, deep, 89_999.99, 0)).toMatchObject({ kind: 'breached', breach: { rule: 'max_total_loss' } });
  });

  it("daily_profit_cap locks once the day's profit reaches the cap (over the day's reference), not a cent before", () => {
    const cap = terms({ dailyProfitCapPct: 2, profitTargetPct: 10 });
    const limits = limitsOf(cap, { ...day, startOfDayBalance: 101_000 });
    expect(limits.profitCap).toBe(103_000);
    expect(judge(cap, limits, 102_999.99, 0).kind).toBe('none');
    expect(judge(cap, limits, 103_000, 0)).toMatchObject({ kind: 'locked', lock: { rule: 'daily_profit_cap', limit: 103_000 } });
    // Equity basis: the reference is the day's starting equity.
    const equityBasis = terms({ dailyProfitCapPct: 2, dailyLossBasis: 'equity' });
    expect(limitsOf(equityBasis, { ...day, startOfDayEquity: 99_000 }).profitCap).toBe(101_000);
  });

  it('a pass comes before the cap; the thresholds mark the cap like the target', () => {
    const cap = terms({ dailyProfitCapPct: 12, profitTargetPct: 10, minTradingDays: 0 });
    const limits = limitsOf(cap, day);
    expect(judge(cap, limits, 112_000, 0).kind).toBe('passed');
    expect(thresholdsOf(cap, limits, 0).passAtOrAbove).toBe(110_000);
    const early = terms({ dailyProfitCapPct: 3, minTradingDays: 4 });
    expect(thresholdsOf(early, limitsOf(early, day), 0).passAtOrAbove).toBe(103_000);
    expect(thresholdsOf(terms(), limitsOf(terms(), day), 0).passAtOrAbove).toBe(Infinity);
  });
});

describe('the time rules of SPEC 15: their moments', () => {
  const start = new Date('2026-03-01T10:00:00Z');

  it('max_phase_days and inactivity_days count days of 24 hours', () => {
    expect(timeLimitAt(terms({ maxPhaseDays: 30 }), start)?.toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(timeLimitAt(terms(), start)).toBeNull();
    // Across the March change in New York: still 24 hours a day, whatever the zone.
    expect(inactiveAt(terms({ inactivityDays: 10 }), start)?.toISOString()).toBe('2026-03-11T10:00:00.000Z');
    expect(inactiveAt(terms(), start)).toBeNull();
  });

  it("close_at_session_end: the next end of the session's wall time, after now", () => {
    const session = terms({ closeAtSessionEnd: true, tradingHours: { start: '09:30', end: '16:00', timezone: 'America/New_York' } });
    expect(sessionEndAfter(session, new Date('2026-03-06T15:00:00Z'))?.toISOString()).toBe('2026-03-06T21:00:00.000Z');
    expect(sessionEndAfter(session, new Date('2026-03-06T21:00:00Z'))?.toISOString()).toBe('2026-03-07T21:00:00.000Z');
    // After the change: 16:00 EDT is 20:00 UTC.
    expect(sessionEndAfter(session, new Date('2026-03-09T15:00:00Z'))?.toISOString()).toBe('2026-03-09T20:00:00.000Z');
    expect(sessionEndAfter(terms({ tradingHours: session.tradingHours }), now)).toBeNull();
  });
});

describe("the order preview's worst case", () => {
  it('is the headroom left after losing the stop loss, negative past a limit, would_breach as the rules judge', () => {
    const t = terms();
    const limits = limitsOf(t, { initialBalance: 100_000, startOfDayBalance: 100_000, peakEquity: 100_000 });
    expect(worstCase(t, limits, 100_000, 4_000, 0)).toEqual({ loss_at_stop: 4_000, daily_headroom_after: 1_000, total_headroom_after: 6_000, would_breach: false });
    expect(worstCase(t, limits, 100_000, 5_000, 0).would_breach).toBe(false);
    expect(worstCase(t, limits, 100_000, 5_000.01, 0)).toMatchObject({ daily_headroom_after: -0.01, would_breach: true });
    const lock = terms({ dailyLossAction: 'lock' });
    expect(worstCase(lock, limitsOf(lock, { initialBalance: 100_000, startOfDayBalance: 100_000, peakEquity: 100_000 }), 100_000, 6_000, 0).would_breach).toBe(false);
  });
});
