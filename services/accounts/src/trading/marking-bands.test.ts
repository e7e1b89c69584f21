import { createLogger, QueryTypes } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';
import type { Quote } from './domain/instruments';
import { equityOf, type PricedPosition } from './domain/pnl';
import { TradingEngine } from './engine/trading-engine';
import { BUY, SELL, tradingHelpers } from '../test/trading-helpers';

/**
 * The engine marks an account exactly only when its floating P/L leaves the band inside which
 * nothing about it can change (engine/account-table.ts watch). Held against marking every account
 * at every quote, computed here from the quotes: a random walk over three symbols, across tens of
 * minutes of an engine's clock, must leave exactly the per-minute equity buckets (open, high, low,
 * close) and the breach that marking every account at every quote gives.
 */
let h: Harness;
let org: string;

beforeAll(async () => {
  h = await startHarness();
  org = h.newOrg(100);
});

afterAll(async () => {
  await h.close();
});

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Bucket = { open: number; high: number; low: number; close: number };

it('marks every account as exactly as marking each at every quote: minute buckets and the breach', async () => {
  const t = tradingHelpers(h, h.sql);
  const start: Record<string, Quote> = {
    EURUSD: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001, time: new Date() },
    GBPUSD: { symbol: 'GBPUSD', bid: 1.27, ask: 1.2701, time: new Date() },
    USDJPY: { symbol: 'USDJPY', bid: 150, ask: 150.015, time: new Date() },
  };
  for (const q of Object.values(start)) await t.quote(q.symbol, q.bid, q.ask);
  const numbers = await t.newAccounts(org, 4);
  // Several positions per account, in one symbol and across symbols, both sides; the last account holds one.
  const book: Array<Array<{ symbol: string; side: number; volume: number }>> = [
    [
      { symbol: 'EURUSD', side: BUY, volume: 2 },
      { symbol: 'GBPUSD', side: SELL, volume: 1 },
    ],
    [
      { symbol: 'EURUSD', side: SELL, volume: 3 },
      { symbol: 'EURUSD', side: BUY, volume: 1 },
    ],
    [
      { symbol: 'USDJPY', side: BUY, volume: 1 },
      { symbol: 'GBPUSD', side: BUY, volume: 1.5 },
      { symbol: 'EURUSD', side: SELL, volume: 0.5 },
    ],
    [{ symbol: 'EURUSD', side: BUY, volume: 3 }],
  ];
  const positions = new Map<string, PricedPosition[]>();
  for (const [k, n] of numbers.entries()) {
    const list: PricedPosition[] = [];
    for (const o of book[k]) {
      const p = await t.order(org, n, { symbol: o.symbol, side: o.side, volume: o.volume });
      list.push({ symbol: o.symbol, side: o.side === BUY ? 'buy' : 'sell', volume: o.volume, openPrice: p.openPrice ?? NaN });
    }
    positions.set(n, list);
  }

  // An engine of its own, its clock an hour ahead (its minutes are not the service engine's), no background tick.
  const base = Math.floor(Date.now() / 60_000) * 60_000 + 3_600_000;
  let clock = base;
  const engine = new TradingEngine({
    sequelize: h.sql,
    logger: createLogger('test', { level: 'silent' }),
    rolloverHourUtc: 0,
    clock: { now: () => clock },
    tickMs: 3_600_000,
  });
  const latest = new Map(Object.entries(start));
  const lookup = (symbol: string) => latest.get(symbol);
  const expected = new Map<string, Bucket>();
  const touch = (quote: Quote) => {
    const minute = Math.floor(clock / 60_000) * 60_000;
    for (const n of numbers) {
      const held = positions.get(n) ?? [];
      if (!held.some((p) => p.symbol === quote.symbol)) continue;
      const equity = equityOf(100_000, held, lookup);
      const key = `${n}:${minute}`;
      const b = expected.get(key);
      if (!b) expected.set(key, { open: equity, high: equity, low: equity, close: equity });
      else expected.set(key, { open: b.open, high: Math.max(b.high, equity), low: Math.min(b.low, equity), close: equity });
    }
  };
  const send = async (quote: Quote) => {
    latest.set(quote.symbol, quote);
    touch(quote);
    await engine.streamQuote(quote);
  };

  const next = random(20261123);
  const steps: Record<string, { step: number; spread: number; digits: number }> = {
    EURUSD: { step: 0.0001, spread: 0.0001, digits: 5 },
    GBPUSD: { step: 0.0001, spread: 0.0001, digits: 5 },
    USDJPY: { step: 0.01, spread: 0.015, digits: 3 },
  };
  try {
    for (let i = 0; i < 600; i++) {
      clock += Math.floor(next() * 8_000);
      const symbol = ['EURUSD', 'GBPUSD', 'USDJPY'][Math.floor(next() * 3)];
      const s = steps[symbol];
      const last = latest.get(symbol) as Quote;
      const bid = Number((last.bid + Math.round((next() - 0.5) * 6) * s.step).toFixed(s.digits));
      await send({ symbol, bid, ask: Number((bid + s.spread).toFixed(s.digits)), time: new Date(clock) });
    }
    expect(clock - base).toBeGreaterThan(20 * 60_000);
    // Then EURUSD falls in 5-pip steps until the last account (3 lots bought) is below its daily floor.
    const lone = numbers[3];
    const lonePositions = positions.get(lone) ?? [];
    let breachEquity = NaN;
    for (let i = 0; i < 400 && Number.isNaN(breachEquity); i++) {
      clock += 1_000;
      const bid = Number(((latest.get('EURUSD') as Quote).bid - 0.0005).toFixed(5));
      await send({ symbol: 'EURUSD', bid, ask: Number((bid + 0.0001).toFixed(5)), time: new Date(clock) });
      const equity = equityOf(100_000, lonePositions, lookup);
      if (equity < 95_000) breachEquity = equity;
    }
    expect(breachEquity).toBeLessThan(95_000);
    const [breached] = await t.events(lone, 'account.breached');
    expect(breached).toMatchObject({ rule: 'max_daily_loss' });
    expect(Number(breached.equity)).toBe(breachEquity);
    for (const n of numbers.slice(0, 3)) expect(await t.events(n, 'account.breached')).toHaveLength(0);
  } finally {
    await engine.stop();
  }

  const rows = await h.sql.query<{ account_number: string; minute: Date; open: string; high: string; low: string; close: string }>(
    `SELECT account_number, minute, open, high, low, close FROM equity_minutes WHERE minute >= :from ORDER BY account_number, minute`,
    { replacements: { from: new Date(base) }, type: QueryTypes.SELECT },
  );
  const written = new Map(
    rows.map((r) => [`${r.account_number}:${new Date(r.minute).getTime()}`, { open: Number(r.open), high: Number(r.high), low: Number(r.low), close: Number(r.close) }]),
  );
  // The breached account's buckets after its breach are the breach's business (its positions were closed): compared up to it.
  const breachMinute = Math.floor(clock / 60_000) * 60_000;
  for (const [key, bucket] of expected) {
    if (key === `${numbers[3]}:${breachMinute}`) continue;
    expect({ key, ...written.get(key) }).toEqual({ key, ...bucket });
  }
  expect(expected.size).toBeGreaterThan(60);
  expect([...written.keys()].filter((k) => !expected.has(k))).toEqual([]);
  // Sanity of the walk: some minutes had a range (the bands were crossed and re-centred within them).
  expect([...expected.values()].filter((b) => b.high > b.low).length).toBeGreaterThan(30);
});
