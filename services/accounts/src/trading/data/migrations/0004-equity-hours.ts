import type { Migration } from '@propdesk/kit';

/**
 * Per-hour equity rollups beside the per-minute buckets, each extreme with the minute it happened,
 * so an equity curve over months reads thousands of rows instead of hundreds of thousands. Kept in
 * the same statement as the minutes (equity-minutes.ts); filled here from the minutes that exist.
 */
export const equityHoursSchema: Migration = {
  name: 'trading-0004-equity-hours',
  async up({ sql }) {
    await sql(`
      CREATE TABLE equity_hours (
        account_number bigint NOT NULL REFERENCES accounts (number),
        hour timestamptz NOT NULL,
        high numeric(20, 2) NOT NULL,
        high_at timestamptz NOT NULL,
        low numeric(20, 2) NOT NULL,
        low_at timestamptz NOT NULL,
        close numeric(20, 2) NOT NULL,
        balance numeric(20, 2) NOT NULL,
        PRIMARY KEY (account_number, hour)
      );
    `);
    await sql(REBUILD_EQUITY_HOURS_SQL.replace(':accountFilter', 'TRUE'));
  },
};

/** Hours rebuilt from the minutes (the migration's fill, and the repair of a seeded history). */
export const REBUILD_EQUITY_HOURS_SQL = `
  INSERT INTO equity_hours (account_number, hour, high, high_at, low, low_at, close, balance)
  SELECT account_number, date_trunc('hour', minute),
         max(high), (array_agg(minute ORDER BY high DESC, minute))[1],
         min(low), (array_agg(minute ORDER BY low, minute))[1],
         (array_agg(close ORDER BY minute DESC))[1], (array_agg(balance ORDER BY minute DESC))[1]
    FROM equity_minutes WHERE :accountFilter
   GROUP BY account_number, date_trunc('hour', minute)
  ON CONFLICT (account_number, hour) DO UPDATE SET high = EXCLUDED.high, high_at = EXCLUDED.high_at, low = EXCLUDED.low,
    low_at = EXCLUDED.low_at, close = EXCLUDED.close, balance = EXCLUDED.balance`;
