import type { AccountState } from './account-state';

const INITIAL = 256;

/**
 * The figures an exact mark of an account touches, interleaved: slot s's figures are
 * hot[s * STRIDE + field], one 128-byte run per account, so marking an account reads and writes
 * one or two cache lines rather than one per figure.
 */
export const STRIDE = 16;
export const BALANCE = 0;
/** The equity of the account's last exact mark (see `watch` for when that is). */
export const EQUITY = 2;
export const PEAK = 3;
/** Thresholds (domain/rules.ts thresholdsOf). */
export const BREACH_BELOW = 4;
export const PASS_AT_OR_ABOVE = 5;
export const WARN_BELOW = 6;
/** The open minute's equity bucket (MINUTE NaN: none). */
export const MINUTE = 8;
export const HIGH = 9;
export const LOW = 10;
export const CLOSE = 11;
export const OPEN = 12;
/** Deepest mark below the running peak, and as a percentage of the peak. */
export const DRAWDOWN = 13;
export const DRAWDOWN_PCT = 14;
/** 1 when the thresholds move with the peak (a trailing total loss). */
export const TRAILING = 15;

/**
 * What the marking loop reads per position, dense (32 bytes per account, so the accounts of a
 * firm's book stay in the core's cache where the 128-byte figures above would not): the account's
 * floating P/L summed over its open positions, kept exact by every quote, and the band of that sum
 * inside which nothing about the account can change. The band is set by each exact mark
 * (marker.ts markSlot) from the thresholds, the peak, the drawdown so far and the open
 * minute's high and low, with a margin of two cents (equity is judged rounded to the cent), so a
 * sum inside it cannot breach, pass, warn, move the peak, the drawdown or the minute's high or low;
 * only a sum that leaves it has its account marked exactly. Any other write to the account's
 * figures (AccountTable.set) empties the band: its next quote marks it exactly.
 */
export const WSTRIDE = 4;
export const W_FLOATING = 0;
/** The band: [W_LOW, W_HIGH] of the floating sum; empty (W_LOW Infinity) until the next exact mark. */
export const W_LOW = 1;
export const W_HIGH = 2;
/** Which quote last listed the account for an exact mark (so it is marked once per quote however many positions it holds). */
export const W_STAMP = 3;

/**
 * Per-account state of the engine's hot path, indexed by a slot (AccountState.slot): the figures
 * above, and what the equity writer keeps per account (last written mark and when, drawdown
 * written). Slots are reused once an account leaves the index.
 */
export class AccountTable {
  /** Slots in use are below this. */
  end = 0;
  states: Array<AccountState | undefined> = [];
  private readonly free: number[] = [];
  private capacity = INITIAL;

  hot = new Float64Array(INITIAL * STRIDE);
  watch = new Float64Array(INITIAL * WSTRIDE);
  written = new Float64Array(INITIAL);
  writtenAt = new Float64Array(INITIAL);
  drawdownWritten = new Float64Array(INITIAL);

  allocate(): number {
    const slot = this.free.pop() ?? this.end++;
    if (slot >= this.capacity) this.grow();
    const h = this.hot;
    const o = slot * STRIDE;
    h.fill(0, o, o + STRIDE);
    h[o + EQUITY] = NaN;
    h[o + BREACH_BELOW] = -Infinity;
    h[o + PASS_AT_OR_ABOVE] = Infinity;
    h[o + WARN_BELOW] = -Infinity;
    h[o + MINUTE] = NaN;
    const w = slot * WSTRIDE;
    this.watch[w + W_FLOATING] = 0;
    this.watch[w + W_STAMP] = -1;
    this.unwatch(slot);
    this.written[slot] = NaN;
    this.writtenAt[slot] = 0;
    this.drawdownWritten[slot] = 0;
    return slot;
  }

  release(slot: number): void {
    this.states[slot] = undefined;
    this.free.push(slot);
  }

  get(slot: number, field: number): number {
    return this.hot[slot * STRIDE + field];
  }

  /** Writes one of the figures outside an exact mark: the account's band is emptied (its next quote marks it exactly). */
  set(slot: number, field: number, value: number): void {
    this.hot[slot * STRIDE + field] = value;
    this.unwatch(slot);
  }

  floating(slot: number): number {
    return this.watch[slot * WSTRIDE + W_FLOATING];
  }

  setFloating(slot: number, value: number): void {
    this.watch[slot * WSTRIDE + W_FLOATING] = value;
    this.unwatch(slot);
  }

  /** Empties the account's band: whatever its next quote, the account is marked exactly. */
  unwatch(slot: number): void {
    const w = slot * WSTRIDE;
    this.watch[w + W_LOW] = Infinity;
    this.watch[w + W_HIGH] = -Infinity;
  }

  unwatchAll(): void {
    for (let slot = 0; slot < this.end; slot++) this.unwatch(slot);
  }

  private grow(): void {
    const n = this.capacity * 2;
    const f = (a: Float64Array, size: number) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.hot = f(this.hot, n * STRIDE);
    this.watch = f(this.watch, n * WSTRIDE);
    this.written = f(this.written, n);
    this.writtenAt = f(this.writtenAt, n);
    this.drawdownWritten = f(this.drawdownWritten, n);
    this.capacity = n;
  }
}
