import type { Quote } from './instruments';
import { validateQuote } from './instruments';
import { checkPreOrderRules, pendingTriggers, pendingTriggersInRange, protectiveExit, protectiveExitInRange, rangeOf, validateOrderAgainstMarket, validateVolume, widenRange } from './orders';
import { equityOf, floatingProfit, marginFor, profitAt } from './pnl';
import { parseTerms } from '../core-port';
import { heldOverWeekend, tradingDayOf, tradingDayStart } from './calendar';
import { evaluate, headroom, totalLossLimit, type AccountSnapshot } from './rules';

const quotes = new Map<string, Quote>();
const lookup = (s: string) => quotes.get(s);
const q = (symbol: string, bid: number, ask: number): Quote => {
  const quote = { symbol, bid, ask, time: new Date() };
  quotes.set(symbol, quote);
  return quote;
};
const standard = parseTerms({});
const findBreach = (terms: typeof standard, s: AccountSnapshot) => {
  const verdict = evaluate(terms, s);
  return verdict.kind === 'breached' ? verdict.breach : undefined;
};
const hasPassed = (terms: typeof standard, s: AccountSnapshot) => evaluate(terms, s).kind === 'passed';

describe('P/L and conversion', () => {
  it('a 1-lot EURUSD buy at 1.10000 marked at a 1.09400 bid floats -600', () => {
    q('EURUSD', 1.094, 1.0941);
    const position = { symbol: 'EURUSD', side: 'buy' as const, volume: 1, openPrice: 1.1 };
    expect(floatingProfit(position, lookup)).toBeCloseTo(-600, 6);
    expect(equityOf(100_000, [position], lookup)).toBe(99_400);
  });

  it('a sell is marked at the ask', () => {
    q('EURUSD', 1.0999, 1.1001);
    expect(floatingProfit({ symbol: 'EURUSD', side: 'sell', volume: 2, openPrice: 1.1 }, lookup)).toBeCloseTo(-20, 6);
  });

  it('USDJPY profit in JPY is divided by the closing rate', () => {
    // 1 lot = 100,000 USD; 1 yen move = 100,000 JPY; at 151.000 that is 662.25 USD.
    expect(profitAt({ symbol: 'USDJPY', side: 'buy', volume: 1, openPrice: 150 }, 151, lookup)).toBe(662.25);
  });

  it('gold is 100 oz, US30 and BTCUSD 1 unit per lot', () => {
    expect(profitAt({ symbol: 'XAUUSD', side: 'buy', volume: 0.5, openPrice: 2300 }, 2310, lookup)).toBe(500);
    expect(profitAt({ symbol: 'US30', side: 'sell', volume: 3, openPrice: 39_000 }, 38_900, lookup)).toBe(300);
    expect(profitAt({ symbol: 'BTCUSD', side: 'buy', volume: 0.1, openPrice: 60_000 }, 59_000, lookup)).toBe(-100);
  });

  it('margin is notional over leverage, in USD', () => {
    expect(marginFor('EURUSD', 1, 1.1, 100, lookup)).toBeCloseTo(1100, 6);
    expect(marginFor('USDJPY', 2, 150, 100, lookup)).toBeCloseTo(2000, 6);
  });
});

describe('quotes and orders', () => {
  it('refuses crossed, non-finite and unknown quotes naming the field', () => {
    expect(() => validateQuote({ symbol: 'EURUSD', bid: 1.2, ask: 1.1 })).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'quote.bid' }));
    expect(() => validateQuote({ symbol: 'EURUSD', bid: 1.1, ask: Infinity })).toThrow(expect.objectContaining({ param: 'quote.ask' }));
    expect(() => validateQuote({ symbol: 'NOPE', bid: 1, ask: 1 })).toThrow(expect.objectContaining({ param: 'quote.symbol' }));
  });

  it('volume must be positive, finite, in 0.01 steps', () => {
    expect(() => validateVolume(0)).toThrow(expect.objectContaining({ param: 'volume' }));
    expect(() => validateVolume(Number.NaN)).toThrow(expect.objectContaining({ param: 'volume' }));
    expect(() => validateVolume(0.015)).toThrow(expect.objectContaining({ param: 'volume' }));
    expect(() => validateVolume(0.07)).not.toThrow();
  });

  it('a limit on the wrong side of the market and a stop loss above a buy entry are refused', () => {
    const market = { bid: 1.1, ask: 1.1002 };
    expect(() => validateOrderAgainstMarket({ symbol: 'EURUSD', side: 'buy', type: 'limit', volume: 1, price: 1.101 }, market)).toThrow(
      expect.objectContaining({ param: 'price' }),
    );
    expect(() => validateOrderAgainstMarket({ symbol: 'EURUSD', side: 'buy', type: 'market', volume: 1, stopLoss: 1.2 }, market)).toThrow(
      expect.objectContaining({ param: 'stop_loss' }),
    );
    expect(() => validateOrderAgainstMarket({ symbol: 'EURUSD', side: 'sell', type: 'market', volume: 1, takeProfit: 1.2 }, market)).toThrow(
      expect.objectContaining({ param: 'take_profit' }),
    );
    expect(validateOrderAgainstMarket({ symbol: 'EURUSD', side: 'sell', type: 'stop', volume: 1, price: 1.09 }, market)).toBe(1.09);
  });

  it('resting orders trigger where the market reaches them', () => {
    expect(pendingTriggers({ side: 'buy', type: 'limit', price: 1.1 }, { bid: 1.0998, ask: 1.1 })).toBe(true);
    expect(pendingTriggers({ side: 'buy', type: 'stop', price: 1.1 }, { bid: 1.0998, ask: 1.0999 })).toBe(false);
    expect(pendingTriggers({ side: 'sell', type: 'limit', price: 1.1 }, { bid: 1.1, ask: 1.1002 })).toBe(true);
    expect(pendingTriggers({ side: 'sell', type: 'stop', price: 1.1 }, { bid: 1.1001, ask: 1.1003 })).toBe(false);
  });

  it('stop loss and take profit close at their level', () => {
    expect(protectiveExit({ side: 'buy', stopLoss: 1.09, takeProfit: 1.12 }, { bid: 1.0895, ask: 1.0897 })).toEqual({ reason: 'stop_loss', price: 1.09 });
    expect(protectiveExit({ side: 'sell', stopLoss: 1.12, takeProfit: 1.09 }, { bid: 1.0888, ask: 1.089 })).toEqual({ reason: 'take_profit', price: 1.09 });
    expect(protectiveExit({ side: 'buy', stopLoss: null, takeProfit: null }, { bid: 1, ask: 1 })).toBeUndefined();
  });

  it('a collapsed burst still triggers stops and limits its intermediate prices reached', () => {
    // 1.1000 -> 1.0940 -> 1.1010: the last quote alone would hit neither level.
    let range = rangeOf({ bid: 1.1, ask: 1.1002 });
    range = widenRange(range, { bid: 1.094, ask: 1.0942 });
    range = widenRange(range, { bid: 1.101, ask: 1.1012 });
    expect(protectiveExitInRange({ side: 'buy', stopLoss: 1.095, takeProfit: 1.2 }, range)).toEqual({ reason: 'stop_loss', price: 1.095 });
    expect(protectiveExitInRange({ side: 'sell', stopLoss: 1.2, takeProfit: 1.095 }, range)).toEqual({ reason: 'take_profit', price: 1.095 });
    expect(protectiveExitInRange({ side: 'buy', stopLoss: 1.09, takeProfit: 1.2 }, range)).toBeUndefined();
    expect(pendingTriggersInRange({ side: 'buy', type: 'limit', price: 1.095 }, range)).toBe(true);
    expect(pendingTriggersInRange({ side: 'sell', type: 'stop', price: 1.0945 }, range)).toBe(true);
    expect(pendingTriggersInRange({ side: 'buy', type: 'stop', price: 1.102 }, range)).toBe(false);
  });

  it('pre-order rules name the rule', () => {
    expect(checkPreOrderRules({ symbol: 'EURUSD', volume: 51 }, standard, { required: 0, equity: 1e9, used: 0 })?.rule).toBe('max_lots_per_order');
    const only = parseTerms({ allowedSymbols: ['EURUSD'] });
    expect(checkPreOrderRules({ symbol: 'BTCUSD', volume: 1 }, only, { required: 0, equity: 1e9, used: 0 })?.rule).toBe('symbol_not_allowed');
    expect(checkPreOrderRules({ symbol: 'EURUSD', volume: 1 }, standard, { required: 1100, equity: 100_000, used: 99_000 })?.rule).toBe('insufficient_margin');
    expect(checkPreOrderRules({ symbol: 'EURUSD', volume: 50 }, standard, { required: 55_000, equity: 100_000, used: 0 })).toBeUndefined();
  });
});

describe('evaluation rules', () => {
  const base = { initialBalance: 100_000, balance: 100_000, peakEquity: 100_000, startOfDayBalance: 100_000, tradingDays: 0 };

  it('equity exactly at the daily limit is inside it; one cent below breaches', () => {
    expect(findBreach(standard, { ...base, equity: 95_000 })).toBeUndefined();
    expect(findBreach(standard, { ...base, equity: 94_999.99 })).toMatchObject({ rule: 'max_daily_loss', limit: 95_000 });
  });

  it('the daily limit follows the start-of-day balance', () => {
    expect(findBreach(standard, { ...base, startOfDayBalance: 103_000, equity: 97_999 })).toMatchObject({ rule: 'max_daily_loss', limit: 98_000 });
  });

  it('static total loss is measured from the initial balance, trailing from the peak', () => {
    expect(totalLossLimit(standard, { initialBalance: 100_000, peakEquity: 120_000 })).toBe(90_000);
    const trailing = parseTerms({ totalLossMode: 'trailing' });
    expect(totalLossLimit(trailing, { initialBalance: 100_000, peakEquity: 120_000 })).toBe(110_000);
    expect(findBreach(standard, { ...base, startOfDayBalance: 94_000, equity: 89_999 })).toMatchObject({ rule: 'max_total_loss', limit: 90_000 });
  });

  it('passes at the target only with the minimum trading days', () => {
    expect(hasPassed(standard, { ...base, equity: 110_000, tradingDays: 3 })).toBe(false);
    expect(hasPassed(standard, { ...base, equity: 110_000, tradingDays: 4 })).toBe(true);
  });

  it('headroom shows what is left before each limit', () => {
    expect(headroom(standard, { ...base, equity: 99_400, tradingDays: 1 })).toMatchObject({
      daily_loss_remaining: 4_400,
      total_loss_remaining: 9_400,
      profit_target_remaining: 10_600,
      trading_days: 1,
      min_trading_days: 4,
    });
  });

  it('the trading day rolls over at the configured hour', () => {
    const t = new Date('2026-03-10T21:30:00Z');
    expect(tradingDayOf(t, 0)).toBe('2026-03-10');
    expect(tradingDayOf(t, 22)).toBe('2026-03-09');
    expect(tradingDayStart(t, 22).toISOString()).toBe('2026-03-09T22:00:00.000Z');
  });

  it('a position open across Saturday 00:00 UTC was held over the weekend', () => {
    const friday = new Date('2026-03-13T15:00:00Z');
    expect(heldOverWeekend(friday, new Date('2026-03-13T23:59:59Z'))).toBe(false);
    expect(heldOverWeekend(friday, new Date('2026-03-16T08:00:00Z'))).toBe(true);
    expect(heldOverWeekend(new Date('2026-03-16T08:00:00Z'), new Date('2026-03-20T08:00:00Z'))).toBe(false);
  });

  it('missing or malformed terms fall back to the standard ones', () => {
    expect(parseTerms({ maxDailyLossPct: 'x', leverage: 30 })).toMatchObject({ maxDailyLossPct: 5, leverage: 30, totalLossMode: 'static' });
  });
});
