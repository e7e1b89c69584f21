import { execute, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { Quote } from '../domain/instruments';

/**
 * Where a universe's latest quotes are stored: the live market's in quotes_latest, a test clock's
 * (SPEC 13) in test_clock_quotes under its id. `clockId` null is the live market.
 */
export async function upsertQuotes(sequelize: Sequelize, quotes: Quote[], tx?: Transaction, clockId: string | null = null): Promise<void> {
  if (quotes.length === 0) return;
  // Arrays travel as four bind parameters: one statement text, whatever the number of quotes.
  const bind = {
    symbols: quotes.map((q) => q.symbol),
    bids: quotes.map((q) => q.bid),
    asks: quotes.map((q) => q.ask),
    times: quotes.map((q) => q.time.toISOString()),
  };
  if (clockId === null) {
    // An older quote never overwrites a newer one.
    await execute(
      sequelize,
      `INSERT INTO quotes_latest (symbol, bid, ask, time)
       SELECT * FROM unnest($symbols::text[], $bids::numeric[], $asks::numeric[], $times::timestamptz[])
       ON CONFLICT (symbol) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, time = EXCLUDED.time
       WHERE quotes_latest.time <= EXCLUDED.time`,
      bind,
      tx,
    );
    return;
  }
  await execute(
    sequelize,
    `INSERT INTO test_clock_quotes (clock_id, symbol, bid, ask, time)
     SELECT $clockId, * FROM unnest($symbols::text[], $bids::numeric[], $asks::numeric[], $times::timestamptz[])
     ON CONFLICT (clock_id, symbol) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, time = EXCLUDED.time
     WHERE test_clock_quotes.time <= EXCLUDED.time`,
    { ...bind, clockId },
    tx,
  );
}

export async function loadQuotes(sequelize: Sequelize, symbol?: string, clockId: string | null = null): Promise<Quote[]> {
  const where = [clockId === null ? '' : 'clock_id = $clockId', symbol ? 'symbol = $symbol' : ''].filter((w) => w !== '');
  const rows = await selectRows<{ symbol: string; bid: string; ask: string; time: Date }>(
    sequelize,
    `SELECT symbol, bid, ask, time FROM ${clockId === null ? 'quotes_latest' : 'test_clock_quotes'}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`,
    { ...(symbol ? { symbol } : {}), ...(clockId === null ? {} : { clockId }) },
  );
  return rows.map((r) => ({ symbol: r.symbol, bid: toNumber(r.bid), ask: toNumber(r.ask), time: r.time }));
}

/** A new test clock's prices: the market's latest quote of every symbol, at the clock's time. */
export async function openClockPrices(sequelize: Sequelize, tx: Transaction, clockId: string, time: Date): Promise<void> {
  await execute(
    sequelize,
    `INSERT INTO test_clock_quotes (clock_id, symbol, bid, ask, time) SELECT $clockId, symbol, bid, ask, $time FROM quotes_latest`,
    { clockId, time },
    tx,
  );
}
