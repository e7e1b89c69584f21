import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger, Sequelize } from '@propdesk/kit';
import { writeMarkedEquity } from '../core-port';
import { recordEquityDrawdowns } from '../data/deal-stats';
import { systemClock, type Clock } from '../domain/clock';
import { upsertEquityMinutes, type EquitySample } from '../data/equity-minutes';
import { roundMoney } from '../domain/instruments';
import { BALANCE, CLOSE, DRAWDOWN, DRAWDOWN_PCT, EQUITY, HIGH, LOW, MINUTE, OPEN, PEAK, STRIDE, type AccountTable } from './account-table';

/** Rows per statement: short enough that a verdict's statements rarely run beside a long one. */
const CHUNK = 250;

/**
 * Rows snapshotted at a flush, column by column in typed arrays (no object per row until its
 * chunk is written: a flush of 50,000 accounts allocates 250 rows at a time, and they die young).
 */
class Columns {
  private data: Float64Array[];
  length = 0;

  constructor(private readonly width: number) {
    this.data = Array.from({ length: width }, () => new Float64Array(1024));
  }

  push(a: number, b: number, c: number, d: number, e = 0, f = 0, g = 0): void {
    if (this.length === this.data[0].length) {
      this.data = this.data.map((column) => {
        const grown = new Float64Array(column.length * 2);
        grown.set(column);
        return grown;
      });
    }
    const row = this.length++;
    const data = this.data;
    data[0][row] = a;
    data[1][row] = b;
    data[2][row] = c;
    data[3][row] = d;
    if (this.width > 4) data[4][row] = e;
    if (this.width > 5) data[5][row] = f;
    if (this.width > 6) data[6][row] = g;
  }

  get(row: number, column: number): number {
    return this.data[column][row];
  }

  /** The rows built by `row`, a chunk at a time. */
  *chunks<T>(row: (i: number) => T): Generator<T[]> {
    for (let from = 0; from < this.length; from += CHUNK) {
      const rows: T[] = [];
      for (let i = from; i < Math.min(this.length, from + CHUNK); i++) rows.push(row(i));
      yield rows;
    }
  }
}

/** Longest a flush's walk over the slots runs before it lets the event loop (a verdict's replies) in. */
const SLICE_MS = 4;

/** Visits every slot of the table (its end read as it grows), yielding to the event loop every SLICE_MS. */
async function eachSlot(table: AccountTable, visit: (slot: number) => void): Promise<void> {
  let sliceStart = performance.now();
  for (let slot = 0; slot < table.end; slot++) {
    visit(slot);
    if ((slot & 1023) === 1023 && performance.now() - sliceStart >= SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
}

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

/** A mark, with the money it was made on: the row takes it only while that is still the row's (writeMarkedEquity). */
type Mark = { number: number; equity: number; peakEquity: number; balance: number; attempt: number };

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
  /** When the last background (or final) flush began: the engine's tick runs one every equityFlushMs. */
  lastFlush = 0;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly logger: Logger,
    private readonly limits: { threshold: number; maxAgeMs: number },
    private readonly table: AccountTable,
    /** Resolves when no verdict is being taken (bounded): each statement waits for it, so a breach never queues behind a flush. */
    private readonly verdictsFirst: () => Promise<void> = async () => undefined,
    /** What a mark's age and the flushes' cadence are measured by (the engine's clock). */
    private readonly clock: Clock = systemClock,
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
    const attempt = t.states[slot]?.account.attempt;
    if (!Number.isNaN(equity) && t.written[slot] !== equity && attempt !== undefined) {
      this.retiredMarks.push({ number: accountNumber, equity, peakEquity: t.get(slot, PEAK), balance: t.get(slot, BALANCE), attempt });
    }
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
    t.writtenAt[slot] = this.clock.now();
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
   *
   * `marks`: what a caller waits for before it reads an account (a unary quote, an order through
   * the API). Its marks only: the open minutes and drawdowns of every indexed account, due every
   * `maxAgeMs`, stay with the background flush (`none`), so such a caller never waits for them
   * (at firm scale, tens of thousands of upserts), and it does not count as the background
   * flush (`lastFlush`).
   */
  async flush(force: 'none' | 'marks' | 'all'): Promise<void> {
    const now = this.clock.now();
    if (force !== 'marks') this.lastFlush = now;
    const background = force !== 'marks';
    const t = this.table;
    const { threshold, maxAgeMs: maxAge } = this.limits;
    // Snapshotted here, written chunk by chunk below. Marked as written now: a mark made meanwhile
    // differs and is written next time.
    const marks = new Columns(6); // account number, equity, peak, slot (-1: retired), balance, attempt
    for (const m of this.retiredMarks) marks.push(m.number, m.equity, m.peakEquity, -1, m.balance, m.attempt);
    this.retiredMarks = [];
    await eachSlot(t, (slot) => {
      // Read afresh at each slot: the table's arrays are replaced when it grows (during a yield).
      const h = t.hot;
      const s = t.states[slot];
      const equity = h[slot * STRIDE + EQUITY];
      if (!s || Number.isNaN(equity) || t.written[slot] === equity) return;
      const last = t.written[slot];
      if (force !== 'none' || Number.isNaN(last) || Math.abs(last - equity) >= threshold || now - t.writtenAt[slot] >= maxAge) {
        marks.push(s.account.number, equity, h[slot * STRIDE + PEAK], slot, h[slot * STRIDE + BALANCE], s.account.attempt);
        t.written[slot] = equity;
        t.writtenAt[slot] = now;
      }
    });
    const completed = this.completedBuckets;
    this.completedBuckets = [];
    const open = new Columns(7); // account number, minute, open, high, low, close, balance
    if (force === 'all' || (background && now - this.lastBucketFlush >= maxAge)) {
      // The open minute too: the upsert merges high/low/close into what a later flush adds.
      this.lastBucketFlush = now;
      await eachSlot(t, (slot) => {
        const h = t.hot;
        const s = t.states[slot];
        const o = slot * STRIDE;
        if (s && !Number.isNaN(h[o + MINUTE])) open.push(s.account.number, h[o + MINUTE], h[o + OPEN], h[o + HIGH], h[o + LOW], h[o + CLOSE], h[o + BALANCE]);
        h[o + MINUTE] = NaN;
      });
    }
    // Drawdowns only grow and only the report reads them: written with the open minute's buckets.
    const drawdowns = new Columns(5); // account number, drawdown, percent, initial balance, slot
    if (force === 'all' || (background && now - this.lastDrawdownFlush >= maxAge)) {
      this.lastDrawdownFlush = now;
      await eachSlot(t, (slot) => {
        const h = t.hot;
        const s = t.states[slot];
        const drawdown = h[slot * STRIDE + DRAWDOWN];
        if (s && drawdown >= t.drawdownWritten[slot] + 0.01) drawdowns.push(s.account.number, roundMoney(drawdown), h[slot * STRIDE + DRAWDOWN_PCT], s.account.initialBalance, slot);
      });
    }
    try {
      const mark = (i: number): Mark => ({ number: marks.get(i, 0), equity: marks.get(i, 1), peakEquity: marks.get(i, 2), balance: marks.get(i, 4), attempt: marks.get(i, 5) });
      for (const chunk of marks.chunks(mark)) {
        await this.verdictsFirst();
        await writeMarkedEquity(this.sequelize, chunk);
      }
      // Completed minutes before the open ones: an account's two pieces of one minute merge in that order.
      for (const chunk of chunks(completed)) {
        await this.verdictsFirst();
        await upsertEquityMinutes(this.sequelize, mergeBuckets(chunk));
      }
      const bucket = (i: number): EquitySample => ({
        accountNumber: open.get(i, 0),
        minute: new Date(open.get(i, 1)),
        open: open.get(i, 2),
        high: open.get(i, 3),
        low: open.get(i, 4),
        close: open.get(i, 5),
        balance: open.get(i, 6),
      });
      for (const chunk of open.chunks(bucket)) {
        await this.verdictsFirst();
        await upsertEquityMinutes(this.sequelize, chunk);
      }
      const drawdown = (i: number) => ({ accountNumber: drawdowns.get(i, 0), drawdown: drawdowns.get(i, 1), pct: drawdowns.get(i, 2), initialBalance: drawdowns.get(i, 3), slot: drawdowns.get(i, 4) });
      for (const chunk of drawdowns.chunks(drawdown)) {
        await this.verdictsFirst();
        await recordEquityDrawdowns(this.sequelize, chunk);
        for (const d of chunk) if (t.states[d.slot]?.account.number === d.accountNumber) t.drawdownWritten[d.slot] = d.drawdown;
      }
    } catch (err) {
      for (let i = 0; i < marks.length; i++) if (marks.get(i, 3) >= 0) t.written[marks.get(i, 3)] = NaN;
      // A deadlock with another replica's flush loses one interval of marks; later marks rewrite them.
      this.logger.warn({ err }, 'equity flush failed');
    }
  }
}
