/** What the feed needs to know of an instrument it quotes (TradingService.ListInstruments tells it). */
export interface QuotedInstrument {
  symbol: string;
  digits: number;
}

export interface SimulatedQuote {
  symbol: string;
  bid: number;
  ask: number;
  time: Date;
}

/**
 * How each symbol moves in the simulation: where its walk starts (and is pulled back to), its
 * typical spread, and its per-step volatility (relative; livelier for metals, indices, crypto).
 * The instruments themselves, their digits included, come from the trading service.
 */
export const PROFILES: Readonly<Record<string, { reference: number; spread: number; volatility: number }>> = {
  EURUSD: { reference: 1.085, spread: 0.0001, volatility: 0.00005 },
  GBPUSD: { reference: 1.27, spread: 0.00012, volatility: 0.00006 },
  USDJPY: { reference: 150.0, spread: 0.015, volatility: 0.00005 },
  XAUUSD: { reference: 2350.0, spread: 0.3, volatility: 0.0001 },
  US30: { reference: 39_000.0, spread: 2, volatility: 0.0001 },
  BTCUSD: { reference: 65_000.0, spread: 15, volatility: 0.0003 },
  AUDUSD: { reference: 0.66, spread: 0.0001, volatility: 0.00006 },
  NZDUSD: { reference: 0.61, spread: 0.00012, volatility: 0.00006 },
  XAGUSD: { reference: 29.5, spread: 0.02, volatility: 0.00015 },
  ETHUSD: { reference: 3_400.0, spread: 1.5, volatility: 0.0004 },
};

function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function round(price: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(price * f) / f;
}

/**
 * A geometric random walk per instrument around its reference price, with a fixed spread.
 * A weak pull back toward the reference keeps a long-running demo in a believable range.
 * Instruments without a profile are not quoted.
 */
export class RandomWalkMarket {
  private readonly walks: Array<{ instrument: QuotedInstrument; reference: number; spread: number; volatility: number; mid: number }>;

  constructor(
    instruments: readonly QuotedInstrument[],
    private readonly random: () => number = Math.random,
  ) {
    this.walks = instruments.flatMap((instrument) => {
      const profile = PROFILES[instrument.symbol];
      return profile ? [{ instrument, ...profile, mid: profile.reference }] : [];
    });
  }

  /** The symbols this market quotes. */
  get symbols(): string[] {
    return this.walks.map((w) => w.instrument.symbol);
  }

  step(now: Date = new Date()): SimulatedQuote[] {
    return this.walks.map((w) => {
      const pull = 0.001 * Math.log(w.reference / w.mid);
      w.mid = w.mid * Math.exp(pull + w.volatility * gaussian(this.random));
      const half = w.spread / 2;
      const bid = round(w.mid - half, w.instrument.digits);
      const ask = Math.max(bid, round(w.mid + half, w.instrument.digits));
      return { symbol: w.instrument.symbol, bid, ask, time: now };
    });
  }
}
