import { execute, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { Quote } from '../domain/instruments';

/** Stores the newest quote per symbol; an older quote never overwrites a newer one. */
export async function upsertQuotes(sequelize: Sequelize, quotes: Quote[], tx?: Transaction): Promise<void> {
  if (quotes.length === 0) return;
  // Arrays travel as four bind parameters: one statement text, whatever the number of quotes.
  await execute(
    sequelize,
    `INSERT INTO quotes_latest (symbol, bid, ask, time)
     SELECT * FROM unnest($symbols::text[], $bids::numeric[], $asks::numeric[], $times::timestamptz[])
     ON CONFLICT (symbol) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, time = EXCLUDED.time
     WHERE quotes_latest.time <= EXCLUDED.time`,
    {
      symbols: quotes.map((q) => q.symbol),
      bids: quotes.map((q) => q.bid),
      asks: quotes.map((q) => q.ask),
      times: quotes.map((q) => q.time.toISOString()),
    },
    tx,
  );
}

export async function loadQuotes(sequelize: Sequelize, symbol?: string): Promise<Quote[]> {
  const rows = await selectRows<{ symbol: string; bid: string; ask: string; time: Date }>(
    sequelize,
    `SELECT symbol, bid, ask, time FROM quotes_latest${symbol ? ' WHERE symbol = $symbol' : ''}`,
    symbol ? { symbol } : {},
  );
  return rows.map((r) => ({ symbol: r.symbol, bid: toNumber(r.bid), ask: toNumber(r.ask), time: r.time }));
}
