import { INSTRUMENTS, roundPrice, type Instrument, type Quote } from '../domain/instruments';

/** Typical spread per instrument, in price units. */
const SPREADS: Record<string, number> = {
  EURUSD: 0.0001,
  GBPUSD: 0.00012,
  USDJPY: 0.015,
  XAUUSD: 0.3,
  US30: 2,
  BTCUSD: 15,
  AUDUSD: 0.0001,
  NZDUSD: 0.00012,
  XAGUSD: 0.02,
  ETHUSD: 1.5,
};

/** Per-step volatility (relative), a little livelier for metals, indices and crypto. */
const VOLATILITY: Record<string, number> = {
  EURUSD: 0.00005,
  GBPUSD: 0.00006,
  USDJPY: 0.00005,
  XAUUSD: 0.0001,
  US30: 0.0001,
  BTCUSD: 0.0003,
  AUDUSD: 0.00006,
  NZDUSD: 0.00006,
  XAGUSD: 0.00015,
  ETHUSD: 0.0004,
};

function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * A geometric random walk per instrument around its reference price, with a fixed spread.
 * A weak pull back toward the reference keeps a long-running demo in a believable range.
 */
export class RandomWalkMarket {
  private readonly mids = new Map<string, number>();

  constructor(
    private readonly instruments: readonly Instrument[] = INSTRUMENTS,
    private readonly random: () => number = Math.random,
  ) {
    for (const i of instruments) this.mids.set(i.symbol, i.referencePrice);
  }

  step(now: Date = new Date()): Quote[] {
    return this.instruments.map((i) => {
      const previous = this.mids.get(i.symbol) ?? i.referencePrice;
      const sigma = VOLATILITY[i.symbol] ?? 0.0001;
      const pull = 0.001 * Math.log(i.referencePrice / previous);
      const next = previous * Math.exp(pull + sigma * gaussian(this.random));
      this.mids.set(i.symbol, next);
      const half = (SPREADS[i.symbol] ?? next * 0.0001) / 2;
      const bid = roundPrice(i, next - half);
      const ask = Math.max(bid, roundPrice(i, next + half));
      return { symbol: i.symbol, bid, ask, time: now };
    });
  }
}
