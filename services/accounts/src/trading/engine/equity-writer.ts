import type { Logger, Sequelize } from '@propdesk/kit';
import { writeMarkedEquity } from '../core-port';
import { recordEquityDrawdowns } from '../data/deal-stats';
import { upsertEquityMinutes, type EquitySample } from '../data/equity-minutes';
import { roundMoney } from '../domain/instruments';
import type { AccountState } from './account-state';

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

/**
 * The engine's writes of marked equity: account rows (bounded per account by a threshold and a
 * maximum age), per-minute equity buckets, and equity drawdowns, each flushed as one statement
 * per batch rather than per quote.
 */
export class EquityWriter {
  /** Accounts whose marked equity differs from what was last written to their row. */
  private readonly markedEquity = new Map<number, AccountState>();
  private readonly lastWrittenEquity = new Map<number, { equity: number; at: number }>();
  private completedBuckets: EquitySample[] = [];
  private lastBucketFlush = 0;
  private lastDrawdownFlush = 0;
  lastFlush = 0;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly logger: Logger,
    private readonly limits: { threshold: number; maxAgeMs: number },
  ) {}

  /** An account leaving the engine's index keeps its open minute: it is written with the next flush. */
  retire(s: AccountState): void {
    if (s.bucket) this.completedBuckets.push(s.bucket);
    s.bucket = undefined;
  }

  /** Drops an account's unwritten mark (its money was reset or paid out since). */
  forget(accountNumber: number): void {
    this.markedEquity.delete(accountNumber);
    this.lastWrittenEquity.delete(accountNumber);
  }

  mark(s: AccountState, equity: number, minute: number): void {
    const n = s.account.number;
    s.equity = equity;
    const dd = s.peakEquity - equity;
    if (dd > s.drawdown) {
      s.drawdown = dd;
      if (s.peakEquity > 0) s.drawdownPct = Math.max(s.drawdownPct, (dd / s.peakEquity) * 100);
    }
    if (this.lastWrittenEquity.get(n)?.equity !== equity) this.markedEquity.set(n, s);
    else this.markedEquity.delete(n);
    let bucket = s.bucket;
    if (bucket && bucket.minute.getTime() !== minute) {
      this.completedBuckets.push(bucket);
      bucket = undefined;
    }
    if (!bucket) {
      s.bucket = { accountNumber: n, minute: new Date(minute), open: equity, high: equity, low: equity, close: equity, balance: s.account.balance };
      return;
    }
    if (equity > bucket.high) bucket.high = equity;
    if (equity < bucket.low) bucket.low = equity;
    bucket.close = equity;
    bucket.balance = s.account.balance;
  }

  /**
   * Bounded write rate: a mark reaches the account row when it moved meaningfully or has
   * waited long enough (all of them when forced); per-minute buckets are written once their
   * minute is over, and the open minute's every `maxAgeMs`. A few hundred rows per statement,
   * so row locks are held briefly next to the breach and close transactions.
   */
  async flush(force: 'none' | 'marks' | 'all', accounts: Iterable<AccountState>): Promise<void> {
    const now = Date.now();
    const all = [...accounts];
    const { threshold, maxAgeMs: maxAge } = this.limits;
    const marks: Array<{ number: number; equity: number; peakEquity: number }> = [];
    for (const [number, s] of this.markedEquity) {
      const last = this.lastWrittenEquity.get(number);
      if (force !== 'none' || !last || Math.abs(last.equity - s.equity) >= threshold || now - last.at >= maxAge) {
        marks.push({ number, equity: s.equity, peakEquity: s.peakEquity });
      }
    }
    for (const m of marks) this.markedEquity.delete(m.number);
    const buckets = this.completedBuckets;
    this.completedBuckets = [];
    if (force === 'all' || now - this.lastBucketFlush >= maxAge) {
      // The open minute too: the upsert merges high/low/close into what a later flush adds.
      this.lastBucketFlush = now;
      for (const s of all) {
        if (s.bucket) buckets.push(s.bucket);
        s.bucket = undefined;
      }
    }
    const drawdowns: Array<{ accountNumber: number; drawdown: number; pct: number; initialBalance: number; state: AccountState }> = [];
    // Drawdowns only grow and only the report reads them: written with the open minute's buckets.
    const flushDrawdowns = force === 'all' || now - this.lastDrawdownFlush >= maxAge;
    if (flushDrawdowns) this.lastDrawdownFlush = now;
    for (const s of flushDrawdowns ? all : []) {
      if (s.drawdown >= s.drawdownWritten + 0.01) {
        drawdowns.push({ accountNumber: s.account.number, drawdown: roundMoney(s.drawdown), pct: s.drawdownPct, initialBalance: s.account.initialBalance, state: s });
      }
    }
    this.lastFlush = now;
    try {
      for (const chunk of chunks(marks)) {
        await writeMarkedEquity(this.sequelize, chunk);
        for (const m of chunk) this.lastWrittenEquity.set(m.number, { equity: m.equity, at: now });
      }
      for (const chunk of chunks(mergeBuckets(buckets))) await upsertEquityMinutes(this.sequelize, chunk);
      for (const chunk of chunks(drawdowns)) {
        await recordEquityDrawdowns(this.sequelize, chunk);
        for (const d of chunk) d.state.drawdownWritten = d.drawdown;
      }
    } catch (err) {
      // A deadlock with another replica's flush loses one interval of marks; later marks rewrite them.
      this.logger.warn({ err }, 'equity flush failed');
    }
    if (this.lastWrittenEquity.size > 100_000) this.lastWrittenEquity.clear();
  }
}
