import { PROFILES, RandomWalkMarket } from './random-walk';

const INSTRUMENTS = [
  { symbol: 'EURUSD', digits: 5 },
  { symbol: 'USDJPY', digits: 3 },
  { symbol: 'XAUUSD', digits: 2 },
  { symbol: 'BTCUSD', digits: 2 },
];

describe('the random-walk market', () => {
  it('quotes every instrument with bid <= ask at its precision, near its reference price', () => {
    const market = new RandomWalkMarket(INSTRUMENTS);
    let quotes = market.step();
    for (let i = 0; i < 500; i++) quotes = market.step();
    expect(quotes.map((q) => q.symbol)).toEqual(INSTRUMENTS.map((i) => i.symbol));
    for (const q of quotes) {
      const { digits } = INSTRUMENTS.find((i) => i.symbol === q.symbol) ?? { digits: 0 };
      const reference = PROFILES[q.symbol].reference;
      expect(q.bid).toBeGreaterThan(0);
      expect(q.bid).toBeLessThanOrEqual(q.ask);
      expect(Math.abs(q.bid * 10 ** digits - Math.round(q.bid * 10 ** digits))).toBeLessThan(1e-6);
      expect(q.bid / reference).toBeGreaterThan(0.8);
      expect(q.bid / reference).toBeLessThan(1.25);
    }
  });

  it('leaves out an instrument it has no profile for', () => {
    const market = new RandomWalkMarket([...INSTRUMENTS, { symbol: 'DOGEUSD', digits: 5 }]);
    expect(market.symbols).toEqual(INSTRUMENTS.map((i) => i.symbol));
    expect(market.step().map((q) => q.symbol)).not.toContain('DOGEUSD');
  });
});
