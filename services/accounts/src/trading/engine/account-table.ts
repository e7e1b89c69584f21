import type { AccountState } from './account-state';

const INITIAL = 256;

/**
 * The per-account figures a mark touches, interleaved: slot s's figures are hot[s * STRIDE + field],
 * one 128-byte run per account, so marking an account reads and writes one or two cache lines
 * rather than one per figure (the marking loop walks tens of thousands of accounts per quote).
 */
export const STRIDE = 16;
export const BALANCE = 0;
/** Floating P/L summed over the account's open positions. */
export const FLOATING = 1;
export const EQUITY = 2;
export const PEAK = 3;
/** Thresholds (domain/rules.ts thresholdsOf). */
export const BREACH_BELOW = 4;
export const PASS_AT_OR_ABOVE = 5;
export const WARN_BELOW = 6;
/** Which quote last touched the account (so a quote marks it once however many positions it holds there). */
export const STAMP = 7;
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
    h[o + STAMP] = -1;
    h[o + MINUTE] = NaN;
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

  set(slot: number, field: number, value: number): void {
    this.hot[slot * STRIDE + field] = value;
  }

  private grow(): void {
    const n = this.capacity * 2;
    const f = (a: Float64Array, size: number) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.hot = f(this.hot, n * STRIDE);
    this.written = f(this.written, n);
    this.writtenAt = f(this.writtenAt, n);
    this.drawdownWritten = f(this.drawdownWritten, n);
    this.capacity = n;
  }
}
