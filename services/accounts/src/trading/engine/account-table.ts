import type { AccountState } from './account-state';

const INITIAL = 256;

/**
 * Per-account figures the engine touches on every mark, struct-of-arrays indexed by a slot
 * (AccountState.slot): the floating P/L summed over the account's positions, its equity, peak,
 * the thresholds its marks are compared with, and what the equity writer keeps (last written
 * mark, the open minute's bucket, drawdowns). Slots are reused once an account leaves the index.
 */
export class AccountTable {
  /** Slots in use are below this. */
  end = 0;
  states: Array<AccountState | undefined> = [];
  private readonly free: number[] = [];
  private capacity = INITIAL;

  balance = new Float64Array(INITIAL);
  floating = new Float64Array(INITIAL);
  equity = new Float64Array(INITIAL);
  peak = new Float64Array(INITIAL);
  trailing = new Int8Array(INITIAL);
  breachBelow = new Float64Array(INITIAL);
  passAtOrAbove = new Float64Array(INITIAL);
  warnBelow = new Float64Array(INITIAL);
  /** Which quote last touched the account (so a quote marks it once however many positions it holds there). */
  stamp = new Float64Array(INITIAL);
  written = new Float64Array(INITIAL);
  writtenAt = new Float64Array(INITIAL);
  minute = new Float64Array(INITIAL);
  bucketOpen = new Float64Array(INITIAL);
  bucketHigh = new Float64Array(INITIAL);
  bucketLow = new Float64Array(INITIAL);
  bucketClose = new Float64Array(INITIAL);
  bucketBalance = new Float64Array(INITIAL);
  drawdown = new Float64Array(INITIAL);
  drawdownPct = new Float64Array(INITIAL);
  drawdownWritten = new Float64Array(INITIAL);

  allocate(): number {
    const slot = this.free.pop() ?? this.end++;
    if (slot >= this.capacity) this.grow();
    this.balance[slot] = 0;
    this.floating[slot] = 0;
    this.equity[slot] = NaN;
    this.peak[slot] = 0;
    this.trailing[slot] = 0;
    this.breachBelow[slot] = -Infinity;
    this.passAtOrAbove[slot] = Infinity;
    this.warnBelow[slot] = -Infinity;
    this.stamp[slot] = -1;
    this.written[slot] = NaN;
    this.writtenAt[slot] = 0;
    this.minute[slot] = NaN;
    this.drawdown[slot] = 0;
    this.drawdownPct[slot] = 0;
    this.drawdownWritten[slot] = 0;
    return slot;
  }

  release(slot: number): void {
    this.states[slot] = undefined;
    this.free.push(slot);
  }

  private grow(): void {
    const n = this.capacity * 2;
    const f = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    this.balance = f(this.balance);
    this.floating = f(this.floating);
    this.equity = f(this.equity);
    this.peak = f(this.peak);
    const t = new Int8Array(n);
    t.set(this.trailing);
    this.trailing = t;
    this.breachBelow = f(this.breachBelow);
    this.passAtOrAbove = f(this.passAtOrAbove);
    this.warnBelow = f(this.warnBelow);
    this.stamp = f(this.stamp);
    this.written = f(this.written);
    this.writtenAt = f(this.writtenAt);
    this.minute = f(this.minute);
    this.bucketOpen = f(this.bucketOpen);
    this.bucketHigh = f(this.bucketHigh);
    this.bucketLow = f(this.bucketLow);
    this.bucketClose = f(this.bucketClose);
    this.bucketBalance = f(this.bucketBalance);
    this.drawdown = f(this.drawdown);
    this.drawdownPct = f(this.drawdownPct);
    this.drawdownWritten = f(this.drawdownWritten);
    this.capacity = n;
  }
}
