import { createLogger, type Sequelize } from '@propdesk/kit';
import type { Position } from '../data/positions';
import type { Quote } from '../domain/instruments';
import type { AccountState } from './account-state';
import { AccountTable, BALANCE, BREACH_BELOW, PASS_AT_OR_ABOVE, WARN_BELOW, W_HIGH, W_LOW, WSTRIDE } from './account-table';
import { EquityWriter } from './equity-writer';
import { BAND_MARGIN, Marker } from './marker';
import { PositionBook } from './position-book';

/**
 * The engine's hot path on data alone: positions and quotes in, marks and threshold crossings out.
 * No database: the accounts are table slots, and the marks go to the equity writer's in-memory
 * figures (its minute buckets and drawdown bound the bands), recorded on their way; nothing is flushed.
 */
const NINE = Date.UTC(2026, 2, 16, 9, 0); // a Monday, 09:00 UTC
const START = 100_000;

interface Mark {
  account: number;
  equity: number;
  minute: number;
}

function position(id: string, side: 'buy' | 'sell', volume: number, openPrice: number, levels: Partial<Pick<Position, 'stopLoss' | 'takeProfit' | 'type' | 'price'>> = {}): Position {
  return {
    id,
    seq: 0,
    accountNumber: 0,
    organizationId: 'org',
    status: levels.price !== undefined ? 'pending' : 'open',
    symbol: 'US30',
    side,
    volume,
    type: levels.type ?? 'market',
    price: levels.price ?? null,
    openPrice: levels.price !== undefined ? null : openPrice,
    stopLoss: levels.stopLoss ?? null,
    takeProfit: levels.takeProfit ?? null,
    openedAt: new Date(NINE - 3_600_000),
    closePrice: null,
    profit: null,
    closedAt: null,
    closeReason: '',
    createdAt: new Date(NINE - 3_600_000),
    attempt: 1,
  };
}

/** A marker over one book (US30: one unit per lot, so a point is a dollar per lot) and the accounts given. */
function market(symbol = 'US30') {
  const table = new AccountTable();
  const book = new PositionBook(symbol);
  const quotes = new Map<string, Quote>();
  const marks: Mark[] = [];
  // Its marks only: no flush here, so no database.
  const writer = new EquityWriter(null as unknown as Sequelize, createLogger('test', { level: 'silent' }), { threshold: 1, maxAgeMs: 15_000 }, table);
  const sink = {
    mark(slot: number, equity: number, minute: number) {
      marks.push({ account: (table.states[slot] as AccountState).account.number, equity, minute });
      writer.mark(slot, equity, minute);
    },
  };
  const marker = new Marker({ table, books: new Map([[symbol, book]]), quotes, sink });
  /** An account holding `positions` (weekendAt: when its positions' weekend begins); returns its slot. */
  const account = (number: number, positions: Position[], weekendAt = Infinity): number => {
    const slot = table.allocate();
    const held = positions.map((p) => ({ ...p, accountNumber: number }));
    table.states[slot] = { slot, account: { number, balance: START }, positions: new Map(held.map((p) => [p.id, p])), weekendChecked: new Set<string>() } as unknown as AccountState;
    table.set(slot, BALANCE, START);
    for (const p of held) {
      if (p.status === 'pending') book.pending.set(p.id, p);
      else book.add(p, slot, weekendAt);
    }
    return slot;
  };
  const quote = (bid: number, ask: number, at = NINE) => {
    const q: Quote = { symbol, bid, ask, time: new Date(at) };
    quotes.set(symbol, q);
    return { q, marks: marker.markBook(book, q, at) };
  };
  return { table, book, marker, marks, account, quote };
}

describe('the marker', () => {
  it('marks a buy at the bid and a sell at the ask, and each account exactly on its first quote', () => {
    const m = market();
    m.account(1, [position('b', 'buy', 2, 39_000)]);
    m.account(2, [position('s', 'sell', 1, 39_000)]);
    const { marks } = m.quote(39_100, 39_102);
    expect(marks).toMatchObject({ marked: 2, exact: 2, suspects: [] });
    expect(m.marks).toEqual([
      { account: 1, equity: 100_200, minute: NINE },
      { account: 2, equity: 99_898, minute: NINE },
    ]);
    expect([...m.book.floating.subarray(0, 2)]).toEqual([200, -102]);
  });

  it('marks an account once per quote however many of its positions the quote moves', () => {
    const m = market();
    m.account(7, [position('a', 'buy', 1, 39_000), position('b', 'buy', 0.5, 38_900), position('c', 'sell', 1, 39_050)]);
    const { marks } = m.quote(39_100, 39_101);
    expect(marks).toMatchObject({ marked: 3, exact: 1 });
    // 100 + 100 - 51
    expect(m.marks).toEqual([{ account: 7, equity: 100_149, minute: NINE }]);
  });

  it("converts USDJPY's profit at the position's own marking price", () => {
    const m = market('USDJPY');
    m.account(3, [{ ...position('j', 'buy', 1, 150), symbol: 'USDJPY' }]);
    m.quote(151, 151.02);
    // (151 - 150) * 100,000 yen, at 151 yen to the dollar.
    expect(m.marks).toEqual([{ account: 3, equity: 100_662.25, minute: NINE }]);
  });

  it('leaves an account unmarked while its floating P/L stays inside its band, and marks it once it leaves the band', () => {
    const m = market();
    const slot = m.account(1, [position('b', 'buy', 1, 39_000)]);
    m.quote(39_100, 39_101);
    m.quote(38_900, 38_901);
    // The minute's high and low are 100,100 and 99,900: the band ends two cents inside them.
    const w = slot * WSTRIDE;
    expect(m.table.watch[w + W_LOW]).toBeCloseTo(-100 + BAND_MARGIN, 9);
    expect(m.table.watch[w + W_HIGH]).toBeCloseTo(100 - BAND_MARGIN, 9);
    m.marks.length = 0;
    expect(m.quote(39_099.97, 39_100).marks).toMatchObject({ marked: 1, exact: 0 });
    expect(m.quote(38_900.03, 38_901).marks).toMatchObject({ marked: 1, exact: 0 });
    expect(m.marks).toEqual([]);
    // One cent past the band's upper edge: marked exactly.
    expect(m.quote(39_099.99, 39_100).marks).toMatchObject({ exact: 1, suspects: [] });
    expect(m.marks).toEqual([{ account: 1, equity: 100_099.99, minute: NINE }]);
  });

  it('settles a mark made inside the band before the marks are written, and closes a minute at its exact sum', () => {
    const m = market();
    m.account(1, [position('b', 'buy', 1, 39_000)]);
    m.quote(39_100, 39_101);
    m.quote(38_900, 38_901);
    m.quote(39_050, 39_051);
    m.marks.length = 0;
    m.marker.settle();
    expect(m.marks).toEqual([{ account: 1, equity: 100_050, minute: NINE }]);
    m.quote(39_020, 39_021);
    m.marks.length = 0;
    // The next minute: the last one's close is the account's sum, and the account is marked at once.
    m.quote(39_010, 39_011, NINE + 60_000);
    expect(m.marks).toEqual([
      { account: 1, equity: 100_020, minute: NINE },
      { account: 1, equity: 100_010, minute: NINE + 60_000 },
    ]);
  });

  it('makes an account a suspect below its breach level, at or above its pass level, and below a warning level', () => {
    const m = market();
    const slot = m.account(1, [position('b', 'buy', 1, 39_000)]);
    m.table.set(slot, BREACH_BELOW, 95_000);
    m.table.set(slot, PASS_AT_OR_ABOVE, 110_000);
    const suspectAt = (bid: number) => m.quote(bid, bid + 1).marks.suspects.includes(slot);
    expect(suspectAt(39_100)).toBe(false);
    expect(suspectAt(34_000)).toBe(false); // 95,000: at the breach level is not below it
    expect(suspectAt(33_999.99)).toBe(true);
    expect(suspectAt(48_999.99)).toBe(false);
    expect(suspectAt(49_000)).toBe(true); // 110,000: at the pass level
    m.table.set(slot, WARN_BELOW, 97_000);
    expect(suspectAt(36_000)).toBe(false);
    expect(suspectAt(35_999.99)).toBe(true);
  });

  it('finds the stop losses and take profits a quote reaches, marked on their side, and the resting orders it triggers', () => {
    const m = market();
    m.account(1, [position('long', 'buy', 1, 39_000, { stopLoss: 38_900, takeProfit: 39_200 }), position('short', 'sell', 1, 39_000, { stopLoss: 39_100 })]);
    m.account(2, [position('limit', 'buy', 1, 0, { type: 'limit', price: 38_950 })]);
    const crossed = (bid: number, ask: number) => {
      const { q, marks } = m.quote(bid, ask);
      const c = m.marker.crossingsOf(m.book, q, marks);
      return { exits: c.exits.map((e) => [e.position.id, e.reason, e.price]), fills: c.fills.map((p) => p.id) };
    };
    expect(crossed(39_000, 39_001)).toEqual({ exits: [], fills: [] });
    // The buy is marked at the bid (at its stop), the sell at the ask; the limit buy fills at an ask at or below its price.
    expect(crossed(38_900, 38_950)).toEqual({ exits: [['long', 'stop_loss', 38_900]], fills: ['limit'] });
    expect(crossed(39_099, 39_100)).toEqual({ exits: [['short', 'stop_loss', 39_100]], fills: [] });
    expect(crossed(39_200, 39_201)).toEqual({ exits: [['long', 'take_profit', 39_200], ['short', 'stop_loss', 39_100]], fills: [] });
  });

  it('hands a position held into its weekend over once', () => {
    const m = market();
    const saturday = Date.UTC(2026, 2, 14);
    m.account(1, [position('b', 'buy', 1, 39_000)], saturday);
    const weekend = (at: number) => {
      const { q, marks } = m.quote(39_000, 39_001, at);
      return m.marker.crossingsOf(m.book, q, marks).weekend.map((p) => p.id);
    };
    expect(weekend(saturday - 1)).toEqual([]);
    expect(weekend(saturday + 60_000)).toEqual(['b']);
    expect(weekend(saturday + 120_000)).toEqual([]);
  });
});
