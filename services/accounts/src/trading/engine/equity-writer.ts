import type { Logger, Sequelize } from '@propdesk/kit';
import { writeMarkedEquity } from '../core-port';
import { recordEquityDrawdowns } from '../data/deal-stats';
import { upsertEquityMinutes, type EquitySample } from '../data/equity-minutes';
import { roundMoney } from '../domain/instruments';
import { BALANCE, CLOSE, DRAWDOWN, DRAWDOWN_PCT, EQUITY, HIGH, LOW, MINUTE, OPEN, PEAK, STRIDE, type AccountTable } from './account-table';

const CHUNK = 500;

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

/** One row per (account, minute) per statement: an upsert may not touch the same row twice. */
function mergeBuckets(buckets: EquitySample[]): EquitySample[] {
  const merged = new Map<string, EquitySample>();
  for (const b of buckets) {
    const key = `${b.accountNumber}:${b.minute.getTime()}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...b });
    else {
      seen.high = Math.max(seen.high, b.high);
      seen.low = Math.min(seen.low, b.low);
      seen.close = b.close;
      seen.balance = b.balance;
    }
  }
  return [...merged.values()];
}

type Mark = { number: number; equity: number; peakEquity: number };

/**
 * The engine's writes of marked equity: account rows (bounded per account by a threshold and a
 * maximum age), per-minute equity buckets, and equity drawdowns, each flushed as one statement
 * per batch rather than per quote. What it keeps per account is in the AccountTable's arrays.
 */
export class EquityWriter {
  private completedBuckets: EquitySample[] = [];
  /** Marks of accounts that left the index before their mark was written. */
  private retiredMarks: Mark[] = [];
  private lastBucketFlush = 0;
  private lastDrawdownFlush = 0;
  lastFlush = 0;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly logger: Logger,
    private readonly limits: { threshold: number; maxAgeMs: number },
    private readonly table: AccountTable,
  ) {}

  private bucketOf(slot: number, accountNumber: number): EquitySample {
    const h = this.table.hot;
    const o = slot * STRIDE;
    // The bucket's balance is the account's latest: a balance changes only on a reload, which marks it again.
    return { accountNumber, minute: new Date(h[o + MINUTE]), open: h[o + OPEN], high: h[o + HIGH], low: h[o + LOW], close: h[o + CLOSE], balance: h[o + BALANCE] };
  }

  /** An account leaving the engine's index keeps its open minute and its unwritten mark: written with the next flush. */
  retire(slot: number, accountNumber: number): void {
    const t = this.table;
    if (!Number.isNaN(t.get(slot, MINUTE))) this.completedBuckets.push(this.bucketOf(slot, accountNumber));
    t.set(slot, MINUTE, NaN);
    const equity = t.get(slot, EQUITY);
    if (!Number.isNaN(equity) && t.written[slot] !== equity) this.retiredMarks.push({ number: accountNumber, equity, peakEquity: t.get(slot, PEAK) });
  }

  /**
   * A reset or payout moved the account's money since this replica marked it: its unwritten mark,
   * open minute and running drawdown are of the money before and are dropped, not written over the
   * new row (the slot starts from the row's equity, as written).
   */
  forget(slot: number, account: { number: number; equity: number }): void {
    const t = this.table;
    t.set(slot, EQUITY, account.equity);
    t.set(slot, MINUTE, NaN);
    t.set(slot, DRAWDOWN, 0);
    t.set(slot, DRAWDOWN_PCT, 0);
    t.written[slot] = account.equity;
    t.writtenAt[slot] = Date.now();
    t.drawdownWritten[slot] = 0;
    this.retiredMarks = this.retiredMarks.filter((m) => m.number !== account.number);
  }

  /** A mark of the account in `slot` (its peak already raised by the caller); no allocation unless a minute ended. */
  mark(slot: number, equity: number, minute: number): void {
    const h = this.table.hot;
    const o = slot * STRIDE;
    h[o + EQUITY] = equity;
    const peak = h[o + PEAK];
    const dd = peak - equity;
    if (dd > h[o + DRAWDOWN]) {
      h[o + DRAWDOWN] = dd;
      if (peak > 0) h[o + DRAWDOWN_PCT] = Math.max(h[o + DRAWDOWN_PCT], (dd / peak) * 100);
    }
    const open = h[o + MINUTE];
    if (open !== minute) {
      const s = this.table.states[slot];
      if (!Number.isNaN(open) && s) this.completedBuckets.push(this.bucketOf(slot, s.account.number));
      h[o + MINUTE] = minute;
      h[o + OPEN] = equity;
      h[o + HIGH] = equity;
      h[o + LOW] = equity;
      h[o + CLOSE] = equity;
      return;
    }
    if (equity > h[o + HIGH]) h[o + HIGH] = equity;
    if (equity < h[o + LOW]) h[o + LOW] = equity;
    h[o + CLOSE] = equity;
  }

  /**
   * Bounded write rate: a mark reaches the account row when it moved meaningfully or has
   * waited long enough (all of them when forced); per-minute buckets are written once their
   * minute is over, and the open minute's every `maxAgeMs`. A few hundred rows per statement,
   * so row locks are held briefly next to the breach and close transactions.
   */
  async flush(force: 'none' | 'marks' | 'all'): Promise<void> {
    const now = Date.now();
    const t = this.table;
    const { threshold, maxAgeMs: maxAge } = this.limits;
    const marks = this.retiredMarks;
    this.retiredMarks = [];
    const slots: number[] = [];
    for (let slot = 0; slot < t.end; slot++) {
      const s = t.states[slot];
      const equity = t.get(slot, EQUITY);
      if (!s || Number.isNaN(equity) || t.written[slot] === equity) continue;
      const last = t.written[slot];
      if (force !== 'none' || Number.isNaN(last) || Math.abs(last - equity) >= threshold || now - t.writtenAt[slot] >= maxAge) {
        marks.push({ number: s.account.number, equity, peakEquity: t.get(slot, PEAK) });
        slots.push(slot);
      }
    }
    const buckets = this.completedBuckets;
    this.completedBuckets = [];
    if (force === 'all' || now - this.lastBucketFlush >= maxAge) {
      // The open minute too: the upsert merges high/low/close into what a later flush adds.
      this.lastBucketFlush = now;
      for (let slot = 0; slot < t.end; slot++) {
        const s = t.states[slot];
        if (s && !Number.isNaN(t.get(slot, MINUTE))) buckets.push(this.bucketOf(slot, s.account.number));
        t.set(slot, MINUTE, NaN);
      }
    }
    const drawdowns: Array<{ accountNumber: number; drawdown: number; pct: number; initialBalance: number; slot: number }> = [];
    // Drawdowns only grow and only the report reads them: written with the open minute's buckets.
    const flushDrawdowns = force === 'all' || now - this.lastDrawdownFlush >= maxAge;
    if (flushDrawdowns) {
      this.lastDrawdownFlush = now;
      for (let slot = 0; slot < t.end; slot++) {
        const s = t.states[slot];
        const drawdown = t.get(slot, DRAWDOWN);
        if (s && drawdown >= t.drawdownWritten[slot] + 0.01) {
          drawdowns.push({ accountNumber: s.account.number, drawdown: roundMoney(drawdown), pct: t.get(slot, DRAWDOWN_PCT), initialBalance: s.account.initialBalance, slot });
        }
      }
    }
    this.lastFlush = now;
    // Marked as written before the statements run: a mark made meanwhile differs and is written next time.
    for (const slot of slots) {
      t.written[slot] = t.get(slot, EQUITY);
      t.writtenAt[slot] = now;
    }
    try {
      for (const chunk of chunks(marks)) await writeMarkedEquity(this.sequelize, chunk);
      for (const chunk of chunks(mergeBuckets(buckets))) await upsertEquityMinutes(this.sequelize, chunk);
      for (const chunk of chunks(drawdowns)) {
        await recordEquityDrawdowns(this.sequelize, chunk);
        for (const d of chunk) if (t.states[d.slot]?.account.number === d.accountNumber) t.drawdownWritten[d.slot] = d.drawdown;
      }
    } catch (err) {
      for (const slot of slots) t.written[slot] = NaN;
      // A deadlock with another replica's flush loses one interval of marks; later marks rewrite them.
      this.logger.warn({ err }, 'equity flush failed');
    }
  }
}
