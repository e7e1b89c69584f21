import { QueryTypes, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { Quote } from '../domain/instruments';

/** Stores the newest quote per symbol; an older quote never overwrites a newer one. */
export async function upsertQuotes(sequelize: Sequelize, quotes: Quote[], tx?: Transaction): Promise<void> {
  if (quotes.length === 0) return;
  const values = quotes.map((_, i) => `(:s${i}, :b${i}, :a${i}, :t${i})`).join(', ');
  const replacements: Record<string, unknown> = {};
  quotes.forEach((q, i) => {
    replacements[`s${i}`] = q.symbol;
    replacements[`b${i}`] = q.bid;
    replacements[`a${i}`] = q.ask;
    replacements[`t${i}`] = q.time;
  });
  await sequelize.query(
    `INSERT INTO quotes_latest (symbol, bid, ask, time) VALUES ${values}
     ON CONFLICT (symbol) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, time = EXCLUDED.time
     WHERE quotes_latest.time <= EXCLUDED.time`,
    { replacements, transaction: tx },
  );
}

export async function loadQuotes(sequelize: Sequelize, symbol?: string): Promise<Quote[]> {
  const rows = await sequelize.query<{ symbol: string; bid: string; ask: string; time: Date }>(
    `SELECT symbol, bid, ask, time FROM quotes_latest${symbol ? ' WHERE symbol = :symbol' : ''}`,
    { replacements: { symbol: symbol ?? null }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ symbol: r.symbol, bid: toNumber(r.bid), ask: toNumber(r.ask), time: r.time }));
}
