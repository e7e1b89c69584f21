import type { Position } from '../data/positions';
import { findInstrument, type Instrument } from '../domain/instruments';

const INITIAL = 64;

function grown<T extends Float64Array | Int32Array | Int8Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/**
 * The live positions of one symbol, struct-of-arrays: the marking loop reads typed arrays only
 * (no Map walk, no object per position touched per quote). Open positions live in the arrays,
 * swap-removed so they stay dense; resting orders (few) stay objects in `pending`.
 */
export class PositionBook {
  readonly instrument: Instrument;
  /** USDJPY: a JPY profit is converted at the position's own marking price (domain/instruments toUsd). */
  readonly ownRate: boolean;
  size = 0;
  ids: string[] = [];
  /** Account slot (AccountTable) of each position. */
  slot = new Int32Array(INITIAL);
  open = new Float64Array(INITIAL);
  volume = new Float64Array(INITIAL);
  /** +1 buy (marked at the bid), -1 sell (marked at the ask). */
  sign = new Int8Array(INITIAL);
  /** Floating P/L in USD at the last mark. */
  floating = new Float64Array(INITIAL);
  /** Marking prices at or beyond which a stop loss or take profit may be hit (checked exactly by domain/orders). */
  exitBelow = new Float64Array(INITIAL);
  exitAbove = new Float64Array(INITIAL);
  /** The instant after which holding the position is holding over a weekend (Infinity: not watched). */
  weekendAt = new Float64Array(INITIAL);
  /** Positions with a stop loss or take profit: without any, the marking loop does not look for exits. */
  exits = 0;
  /** No position's weekendAt is earlier than this (it may be earlier than the earliest, never later): see weekendDue. */
  weekendFrom = Infinity;
  readonly index = new Map<string, number>();
  readonly pending = new Map<string, Position>();

  constructor(readonly symbol: string) {
    const instrument = findInstrument(symbol);
    if (!instrument) throw new Error(`unknown instrument ${symbol}`);
    this.instrument = instrument;
    this.ownRate = instrument.quoteCurrency === 'JPY' && symbol === 'USDJPY';
  }

  /** An open position (openPrice set); replaces one with the same id. Returns its index. */
  add(p: Position, slot: number, weekendAt: number): number {
    this.remove(p.id);
    if (this.size === this.slot.length) {
      const n = this.size * 2;
      this.slot = grown(this.slot, n);
      this.open = grown(this.open, n);
      this.volume = grown(this.volume, n);
      this.sign = grown(this.sign, n);
      this.floating = grown(this.floating, n);
      this.exitBelow = grown(this.exitBelow, n);
      this.exitAbove = grown(this.exitAbove, n);
      this.weekendAt = grown(this.weekendAt, n);
    }
    const i = this.size++;
    const buy = p.side === 'buy';
    this.ids[i] = p.id;
    this.slot[i] = slot;
    this.open[i] = p.openPrice as number;
    this.volume[i] = p.volume;
    this.sign[i] = buy ? 1 : -1;
    this.floating[i] = 0;
    // A buy's stop is below its mark and its take profit above; a sell's the other way round.
    const below = buy ? p.stopLoss : p.takeProfit;
    const above = buy ? p.takeProfit : p.stopLoss;
    this.exitBelow[i] = below ?? -Infinity;
    this.exitAbove[i] = above ?? Infinity;
    if (below != null || above != null) this.exits++;
    this.weekendAt[i] = weekendAt;
    if (weekendAt < this.weekendFrom) this.weekendFrom = weekendAt;
    this.index.set(p.id, i);
    return i;
  }

  /** Removes a position (open or pending); returns the floating P/L it carried (0 if pending or absent). */
  remove(id: string): number {
    if (this.pending.delete(id)) return 0;
    const i = this.index.get(id);
    if (i === undefined) return 0;
    const floating = this.floating[i];
    if (this.exitBelow[i] !== -Infinity || this.exitAbove[i] !== Infinity) this.exits--;
    const last = --this.size;
    if (i !== last) {
      this.ids[i] = this.ids[last];
      this.slot[i] = this.slot[last];
      this.open[i] = this.open[last];
      this.volume[i] = this.volume[last];
      this.sign[i] = this.sign[last];
      this.floating[i] = this.floating[last];
      this.exitBelow[i] = this.exitBelow[last];
      this.exitAbove[i] = this.exitAbove[last];
      this.weekendAt[i] = this.weekendAt[last];
      this.index.set(this.ids[i], i);
    }
    this.ids.length = last;
    this.index.delete(id);
    return floating;
  }

  /** The positions whose weekend has begun at `now` (their weekendAt is for the caller to clear), and the next weekendFrom. */
  weekendDue(now: number): number[] {
    const due: number[] = [];
    let next = Infinity;
    for (let i = 0; i < this.size; i++) {
      const at = this.weekendAt[i];
      if (now >= at) due.push(i);
      else if (at < next) next = at;
    }
    this.weekendFrom = next;
    return due;
  }

  /**
   * Floating P/L in USD of position i marked at `price`, computed as domain/pnl.ts rawProfit does
   * (same operations in the same order, so the cents agree). `rate`: what an amount in the quote
   * currency is divided by to be in USD (1 for USD; the USDJPY mid for another JPY-quoted symbol).
   */
  profitAt(i: number, price: number, rate: number): number {
    const inQuote = (price - this.open[i]) * this.volume[i] * this.instrument.contractSize * this.sign[i];
    if (this.ownRate) return inQuote / price;
    return rate === 1 ? inQuote : inQuote / rate;
  }
}
