/**
 * The book both firm-scale benches run against (firm-scale.ts, firm-replicas.ts): BENCH_FIRM_ACCOUNTS
 * accounts holding BENCH_FIRM_POSITIONS 0.01-lot positions over the ten symbols, and the window
 * each quote rate is held for (BENCH_FIRM_WINDOW_S).
 */
import type { Client } from 'pg';
import { SYMBOLS, TERMS } from './seed';

export const POSITIONS = Number(process.env.BENCH_FIRM_POSITIONS ?? 100_000);
export const ACCOUNTS = Number(process.env.BENCH_FIRM_ACCOUNTS ?? 50_000);
export const WINDOW_S = Number(process.env.BENCH_FIRM_WINDOW_S ?? 60);

/** ACCOUNTS accounts, POSITIONS 0.01-lot positions spread evenly over them and the ten symbols (no walk breaches them). */
export async function seedFirmBook(pg: Client, org: string): Promise<void> {
  await pg.query(
    `INSERT INTO accounts.accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     SELECT $1, 'standard', $2::jsonb, 100000, 100000, 100000, 100000, 'bench-not-a-secret' FROM generate_series(1, $3::int)`,
    [org, TERMS, ACCOUNTS],
  );
  await pg.query(
    `WITH a AS (SELECT number, row_number() OVER (ORDER BY number) - 1 AS k FROM accounts.accounts WHERE organization_id = $1)
     INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
     SELECT a.number, $1, 'open', ($3::text[])[1 + ((g + g / $2) % 10)], CASE WHEN g % 2 = 0 THEN 'buy' ELSE 'sell' END, 0.01, 'market',
            ($4::numeric[])[1 + ((g + g / $2) % 10)], now() - interval '1 hour', current_date, now() - interval '1 hour', now() - interval '1 hour'
       FROM generate_series(0, $5::int - 1) g JOIN a ON a.k = g % $2`,
    [org, ACCOUNTS, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid), POSITIONS],
  );
  await pg.query('ANALYZE accounts.positions; ANALYZE accounts.accounts');
}

/**
 * Test clocks beside the book (SPEC 13): `clocks` clocks of a test organization, `perClock` test
 * accounts on each, each holding one 0.01-lot position of a book symbol (alternating sides).
 */
export async function seedClocks(pg: Client, org: string, clocks: number, perClock: number): Promise<void> {
  await pg.query(
    `INSERT INTO accounts.test_clocks (id, organization_id, livemode, name, frozen_time)
     SELECT 'clock_' || md5(random()::text || g), $1, false, 'bench ' || g, now() FROM generate_series(1, $2::int) g`,
    [org, clocks],
  );
  await pg.query(
    `INSERT INTO accounts.test_clock_quotes (clock_id, symbol, bid, ask, time)
     SELECT c.id, s.symbol, s.mid, s.mid, now() FROM accounts.test_clocks c, unnest($2::text[], $3::numeric[]) AS s(symbol, mid) WHERE c.organization_id = $1`,
    [org, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid)],
  );
  await pg.query(
    `INSERT INTO accounts.accounts (organization_id, livemode, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed, test_clock_id)
     SELECT $1, false, 'standard', $2::jsonb, 100000, 100000, 100000, 100000, 'bench-not-a-secret', c.id
       FROM accounts.test_clocks c, generate_series(1, $3::int) WHERE c.organization_id = $1`,
    [org, TERMS, perClock],
  );
  await pg.query(
    `WITH a AS (SELECT number, row_number() OVER (ORDER BY number) - 1 AS k FROM accounts.accounts WHERE organization_id = $1)
     INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
     SELECT a.number, $1, 'open', ($2::text[])[1 + (a.k % 10)], CASE WHEN a.k % 2 = 0 THEN 'buy' ELSE 'sell' END, 0.01, 'market',
            ($3::numeric[])[1 + (a.k % 10)], now() - interval '1 hour', current_date, now() - interval '1 hour', now() - interval '1 hour'
       FROM a`,
    [org, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid)],
  );
  await pg.query('ANALYZE accounts.positions; ANALYZE accounts.accounts');
}
