import path from 'node:path';
import type { Client } from 'pg';
import { ROOT } from '../support/stack';

/** The bench's symbols and the mid each walk starts from (EURUSD sits high: see BREACH_BASE). */
/** digits: the instrument's (prices finer than it are refused by PublishQuote). */
export const SYMBOLS: Array<{ symbol: string; mid: number; spread: number; step: number; digits: number }> = [
  { symbol: 'EURUSD', mid: 4.0, spread: 0.0001, step: 0.0001, digits: 5 },
  { symbol: 'GBPUSD', mid: 1.27, spread: 0.0001, step: 0.0001, digits: 5 },
  { symbol: 'USDJPY', mid: 150, spread: 0.015, step: 0.01, digits: 3 },
  { symbol: 'XAUUSD', mid: 2350, spread: 0.3, step: 0.2, digits: 2 },
  { symbol: 'US30', mid: 39_000, spread: 2, step: 2, digits: 2 },
  { symbol: 'BTCUSD', mid: 65_000, spread: 15, step: 10, digits: 2 },
  { symbol: 'AUDUSD', mid: 0.66, spread: 0.0001, step: 0.0001, digits: 5 },
  { symbol: 'NZDUSD', mid: 0.61, spread: 0.0001, step: 0.0001, digits: 5 },
  { symbol: 'XAGUSD', mid: 29.5, spread: 0.02, step: 0.01, digits: 3 },
  { symbol: 'ETHUSD', mid: 3400, spread: 1.5, step: 1, digits: 2 },
];

/** Breach-latency accounts hold 10 lots of EURUSD bought at BREACH_BASE + 0.01 * i (i = 1..n). */
export const BREACH_BASE = 1.5;

/** The standard program's frozen terms, from the accounts service's own definition. */
export const TERMS = JSON.stringify(
  (require(path.join(ROOT, 'services/accounts/dist/domain/programs.js')) as { PROGRAMS: { standard: object } }).PROGRAMS.standard,
);

async function insertAccounts(pg: Client, org: string, count: number): Promise<number[]> {
  const res = await pg.query<{ number: string }>(
    `INSERT INTO accounts.accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     SELECT $1, 'standard', $2::jsonb, 100000, 100000, 100000, 100000, 'bench-not-a-secret' FROM generate_series(1, $3::int)
     RETURNING number`,
    [org, TERMS, count],
  );
  return res.rows.map((r) => Number(r.number)).sort((a, b) => a - b);
}

/**
 * Background load: `count` accounts with one 0.01-lot position each, spread evenly over the ten
 * symbols (small enough that no walk breaches them). updated_at is in the past so replicas do not
 * treat the seed as fresh changes.
 */
export async function seedOpenPositions(pg: Client, org: string, count: number): Promise<void> {
  const numbers = await insertAccounts(pg, org, count);
  await pg.query(
    `INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
     SELECT n, $2, 'open', ($3::text[])[1 + (i % 10)], CASE WHEN i % 2 = 0 THEN 'buy' ELSE 'sell' END, 0.01, 'market',
            ($4::numeric[])[1 + (i % 10)], now() - interval '1 hour', current_date, now() - interval '1 hour', now() - interval '1 hour'
       FROM unnest($1::bigint[]) WITH ORDINALITY AS t(n, i)`,
    [numbers, org, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid)],
  );
}

/**
 * Breach candidates: 10 lots of EURUSD bought at BREACH_BASE + 0.01 * i; a bid 0.0051 under that
 * breaches account i alone (going down from the top). `alsoHolding`: 0.01 lot of each of these
 * symbols too, bought at its walk's start (a few dollars either way: the 100 dollars between the
 * breaching bid's loss and the limit hold), so that a breach closes several positions.
 */
export async function seedBreachAccounts(
  pg: Client,
  org: string,
  count: number,
  alsoHolding: ReadonlyArray<{ symbol: string; mid: number }> = [],
): Promise<number[]> {
  const numbers = await insertAccounts(pg, org, count);
  await pg.query(
    `INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
     SELECT n, $2, 'open', 'EURUSD', 'buy', 10, 'market', $3::numeric + 0.01 * i, now() - interval '1 hour', current_date,
            now() - interval '1 hour', now() - interval '1 hour'
       FROM unnest($1::bigint[]) WITH ORDINALITY AS t(n, i)`,
    [numbers, org, BREACH_BASE],
  );
  if (alsoHolding.length > 0) {
    await pg.query(
      `INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
       SELECT n, $2, 'open', s.symbol, 'buy', 0.01, 'market', s.mid, now() - interval '1 hour', current_date, now() - interval '1 hour', now() - interval '1 hour'
         FROM unnest($1::bigint[]) AS t(n) CROSS JOIN unnest($3::text[], $4::numeric[]) AS s(symbol, mid)`,
      [numbers, org, alsoHolding.map((o) => o.symbol), alsoHolding.map((o) => o.mid)],
    );
  }
  return numbers;
}

/** One account with `deals` closed positions and their deals spread over ~10 months. */
export async function seedDealHistory(pg: Client, org: string, deals: number): Promise<number> {
  const [number] = await insertAccounts(pg, org, 1);
  await pg.query(
    `WITH p AS (
       INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day,
                                       close_price, profit, closed_at, close_reason, created_at, updated_at)
       SELECT $1, $2, 'closed', ($4::text[])[1 + (g % 10)], CASE WHEN g % 3 = 0 THEN 'sell' ELSE 'buy' END, 0.1, 'market', 1.1,
              ts - interval '3 minutes', (ts - interval '3 minutes')::date, 1.1, round((random() * 200 - 95)::numeric, 2), ts, 'manual',
              ts - interval '3 minutes', now() - interval '1 hour'
         FROM (SELECT g, now() - interval '300 days' + g * interval '4 minutes' AS ts FROM generate_series(1, $3::int) g) s
       RETURNING id, account_number, organization_id, symbol, side, volume, open_price, close_price, profit, opened_at, closed_at, close_reason
     )
     INSERT INTO accounts.deals (account_number, organization_id, position_id, symbol, side, volume, open_price, close_price, profit,
                                 opened_at, closed_at, close_reason, balance_after)
     SELECT account_number, organization_id, id, symbol, side, volume, open_price, close_price, profit, opened_at, closed_at, close_reason,
            100000 + sum(profit) OVER (ORDER BY closed_at, id)
       FROM p ORDER BY closed_at`,
    [number, org, deals, SYMBOLS.map((s) => s.symbol)],
  );
  await pg.query(
    `UPDATE accounts.accounts a SET balance = d.b, equity = d.b, peak_equity = GREATEST(a.peak_equity, d.b)
       FROM (SELECT balance_after AS b FROM accounts.deals WHERE account_number = $1 ORDER BY seq DESC LIMIT 1) d WHERE a.number = $1`,
    [number],
  );
  await pg.query('ANALYZE accounts.positions; ANALYZE accounts.deals; ANALYZE accounts.accounts');
  return number;
}
