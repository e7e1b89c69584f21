import type { Position } from '../data/positions';
import { mid, roundMoney, type Quote } from '../domain/instruments';
import { pendingTriggers, protectiveExit } from '../domain/orders';
import { followPeak } from '../domain/rules';
import { storeThresholds, type AccountState } from './account-state';
import { AccountTable, BALANCE, BREACH_BELOW, DRAWDOWN, EQUITY, HIGH, LOW, MINUTE, PASS_AT_OR_ABOVE, PEAK, STRIDE, TRAILING, W_FLOATING, W_HIGH, W_LOW, W_STAMP, WARN_BELOW, WSTRIDE } from './account-table';
import type { Crossings } from './crossings';
import type { PositionBook } from './position-book';

/** How far inside its thresholds an account's band ends (USD): equity is judged rounded to the cent. */
export const BAND_MARGIN = 0.02;

/** Where an exact mark goes: the account's equity, drawdown and open minute (equity-writer.ts mark). */
export interface MarkSink {
  mark(slot: number, equity: number, minute: number): void;
}

/** What marking a book at a quote found; positions are indexes into the book, accounts slots of the table. */
export interface BookMarks {
  /** Positions marked (every open position of the book). */
  marked: number;
  /** Accounts marked exactly: their floating sum left its band. */
  exact: number;
  /** Accounts whose exact mark crossed a threshold (breach, pass or warning level): a verdict may be due. */
  suspects: number[];
  /** Positions whose marking price reached a stop loss or take-profit level (to be checked exactly). */
  exitCandidates?: number[];
  /** Positions whose weekend began (their weekendAt is for the caller to clear). */
  weekendCandidates?: number[];
}

export interface MarkerInputs {
  /** Per-account figures and bands; its `states` name each slot's account. */
  table: AccountTable;
  /** The live positions of each symbol. */
  books: ReadonlyMap<string, PositionBook>;
  /** The latest quote of each symbol (the USDJPY one converts JPY profits). */
  quotes: ReadonlyMap<string, Quote>;
  sink: MarkSink;
}

/**
 * The engine's hot path: marks a symbol's positions at a quote and their accounts. Every quote is
 * marked on its own; the loop reads typed arrays only (PositionBook, AccountTable) and sums each
 * position's change into its account's floating P/L. An account is marked exactly (equity, peak,
 * its minute's bucket, its band) only when that sum leaves the band inside which none of them
 * can move (account-table.ts watch); what crossed is returned as data for the database round trips.
 * No I/O, no clock: the caller says which instant the quote is marked at.
 */
export class Marker {
  /** The minute the accounts' open equity buckets are of (markSlot rolls it). */
  private openMinute = NaN;
  private quoteSeq = 0;
  private crossed = new Int32Array(1024);

  constructor(private readonly inputs: MarkerInputs) {}

  /** The divisor taking the quote currency of `book` to USD at the latest quotes (domain/instruments toUsd). */
  rateOf(book: PositionBook): number {
    if (book.instrument.quoteCurrency === 'USD' || book.ownRate) return 1;
    const q = this.inputs.quotes.get('USDJPY');
    const rate = q ? mid(q) : NaN;
    if (!(rate > 0)) throw new Error('no USDJPY quote to convert JPY to USD yet');
    return rate;
  }

  /**
   * Marks every open position of `book` at `quote` (buys at the bid, sells at the ask), at the
   * instant `nowMs`, then marks exactly the accounts whose sum left its band.
   */
  markBook(book: PositionBook, quote: Quote, nowMs: number): BookMarks {
    const t = this.inputs.table;
    const minute = Math.floor(nowMs / 60_000) * 60_000;
    if (minute !== this.openMinute) this.rollMinute(minute);
    const seq = ++this.quoteSeq;
    const { bid, ask } = quote;
    const rate = this.rateOf(book);
    if (this.crossed.length < book.size) this.crossed = new Int32Array(book.size * 2);
    const crossed = this.crossed;
    let crossedCount = 0;
    let exitCandidates: number[] | undefined;
    const n = book.size;
    // Locals, so the loop reads registers and typed arrays only (the profit is domain/pnl.ts rawProfit, as PositionBook.profitAt).
    const { slot: slots, sign, open, volume, floating, exitBelow, exitAbove } = book;
    const withExits = book.exits > 0;
    const contractSize = book.instrument.contractSize;
    const ownRate = book.ownRate;
    const watch = t.watch;
    for (let i = 0; i < n; i++) {
      const side = sign[i];
      const price = side > 0 ? bid : ask;
      const inQuote = (price - open[i]) * volume[i] * contractSize * side;
      const f = ownRate ? inQuote / price : rate === 1 ? inQuote : inQuote / rate;
      const slot = slots[i];
      const w = slot * WSTRIDE;
      const sum = watch[w + W_FLOATING] + (f - floating[i]);
      watch[w + W_FLOATING] = sum;
      floating[i] = f;
      if ((sum < watch[w + W_LOW] || sum > watch[w + W_HIGH]) && watch[w + W_STAMP] !== seq) {
        watch[w + W_STAMP] = seq;
        crossed[crossedCount++] = slot;
      }
      if (withExits && (price <= exitBelow[i] || price >= exitAbove[i])) (exitCandidates ??= []).push(i);
    }
    const weekendCandidates = nowMs >= book.weekendFrom ? book.weekendDue(nowMs) : undefined;
    const suspects: number[] = [];
    for (let k = 0; k < crossedCount; k++) {
      const slot = crossed[k];
      if (this.markSlot(slot, minute)) suspects.push(slot);
    }
    return { marked: n, exact: crossedCount, suspects, exitCandidates, weekendCandidates };
  }

  /**
   * What else the quote crossed, checked exactly (domain/orders): the resting orders it triggers,
   * the stop losses and take profits among the exit candidates, the positions held into their
   * weekend (each once: no longer watched, and remembered on its account). Right after markBook.
   */
  crossingsOf(book: PositionBook, quote: Quote, marks: BookMarks): Crossings {
    const fills: Position[] = [];
    for (const p of book.pending.values()) {
      if (p.price !== null && pendingTriggers({ side: p.side, type: p.type, price: p.price }, quote)) fills.push(p);
    }
    return { fills, exits: this.exitsOf(book, marks.exitCandidates, quote), weekend: this.weekendOf(book, marks.weekendCandidates) };
  }

  private exitsOf(book: PositionBook, candidates: number[] | undefined, quote: Quote): Crossings['exits'] {
    const exits: Crossings['exits'] = [];
    for (const i of candidates ?? []) {
      const p = this.inputs.table.states[book.slot[i]]?.positions.get(book.ids[i]);
      const exit = p && protectiveExit(p, quote);
      if (p && exit) exits.push({ position: p, ...exit });
    }
    return exits;
  }

  private weekendOf(book: PositionBook, candidates: number[] | undefined): Position[] {
    const weekend: Position[] = [];
    for (const i of candidates ?? []) {
      book.weekendAt[i] = Infinity;
      const s = this.inputs.table.states[book.slot[i]];
      const p = s?.positions.get(book.ids[i]);
      if (s && p && !s.weekendChecked.has(p.id)) {
        s.weekendChecked.add(p.id);
        weekend.push(p);
      }
    }
    return weekend;
  }

  /**
   * Marks the account in `slot` exactly at its summed floating P/L: equity, peak (a trailing limit
   * moves with it), the writer's bucket, then its band (account-table.ts watch). True when a
   * threshold is crossed (a verdict may be due).
   */
  markSlot(slot: number, minute: number): boolean {
    if (minute !== this.openMinute) this.rollMinute(minute);
    return this.markExactly(slot, minute);
  }

  private markExactly(slot: number, minute: number): boolean {
    const t = this.inputs.table;
    const h = t.hot;
    const o = slot * STRIDE;
    const balance = h[o + BALANCE];
    const equity = roundMoney(balance + t.floating(slot));
    if (equity > h[o + PEAK]) {
      h[o + PEAK] = equity;
      if (h[o + TRAILING] !== 0) this.movePeak(slot, equity);
    }
    this.inputs.sink.mark(slot, equity, minute);
    // The band: no threshold, peak, drawdown or minute high/low can move while the sum stays inside.
    const low = Math.max(h[o + BREACH_BELOW], h[o + WARN_BELOW], h[o + LOW], h[o + PEAK] - h[o + DRAWDOWN]);
    const high = Math.min(h[o + PASS_AT_OR_ABOVE], h[o + HIGH], h[o + PEAK]);
    const w = slot * WSTRIDE;
    const watch = t.watch;
    watch[w + W_LOW] = low - balance + BAND_MARGIN;
    watch[w + W_HIGH] = high - balance - BAND_MARGIN;
    // An empty band (or one not computable) marks the account exactly at every quote.
    if (!(watch[w + W_LOW] <= watch[w + W_HIGH])) t.unwatch(slot);
    return equity < h[o + BREACH_BELOW] || equity >= h[o + PASS_AT_OR_ABOVE] || equity < h[o + WARN_BELOW];
  }

  /** A trailing floor (and its warning level) moves only when the peak does. */
  private movePeak(slot: number, peakEquity: number): void {
    const s = this.inputs.table.states[slot] as AccountState;
    followPeak(s.account.terms, s.limits, s.account.initialBalance, peakEquity);
    storeThresholds(s, this.inputs.table);
  }

  /**
   * Brings the last exact marks of the accounts marked this minute up to their sums (their
   * equity and the minute's close may have moved inside their bands since): before the marks are
   * written and before the minute's buckets close. Accounts not marked this minute have not moved
   * since their last exact mark (every band is emptied when a minute begins).
   */
  settle(): void {
    const t = this.inputs.table;
    for (let slot = 0; slot < t.end; slot++) if (t.states[slot] !== undefined) this.settleSlot(slot);
  }

  settleSlot(slot: number): void {
    const t = this.inputs.table;
    const o = slot * STRIDE;
    if (t.hot[o + MINUTE] !== this.openMinute) return;
    if (roundMoney(t.hot[o + BALANCE] + t.floating(slot)) !== t.hot[o + EQUITY]) this.markExactly(slot, this.openMinute);
  }

  /** A new minute: the open buckets get their exact close, and every account is marked exactly at its next quote (so its bucket opens). */
  private rollMinute(minute: number): void {
    this.settle();
    this.inputs.table.unwatchAll();
    this.openMinute = minute;
  }

  /** Marks an account exactly at the latest quotes, its floating P/L recomputed first; true when a threshold is crossed. */
  markAccount(s: AccountState, minute: number): boolean {
    this.remark(s);
    return this.markSlot(s.slot, minute);
  }

  /** Recomputes an account's floating P/L from its positions at the latest quotes (exact, no running sum). */
  remark(s: AccountState): void {
    let floating = 0;
    for (const p of s.positions.values()) {
      if (p.status !== 'open') continue;
      const book = this.inputs.books.get(p.symbol);
      const i = book?.index.get(p.id);
      if (!book || i === undefined) continue;
      const quote = this.inputs.quotes.get(p.symbol);
      const f = quote ? book.profitAt(i, book.sign[i] > 0 ? quote.bid : quote.ask, this.rateOf(book)) : 0;
      book.floating[i] = f;
      floating += f;
    }
    this.inputs.table.setFloating(s.slot, floating);
  }
}
