import type { Migration } from '@propdesk/kit';

/**
 * Per-hour equity rollups beside the per-minute buckets, each extreme with the minute it happened,
 * so an equity curve over months reads thousands of rows instead of hundreds of thousands. Only
 * completed hours are rolled (see ROLLED_HOURS_END): filled here from the minutes that exist, then
 * as curves are read (statistics.ts, rollEquityHours); the write path of marks is unchanged.
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

/**
 * Where rolled hours end: the start of the hour before now minus five minutes. Marks land in their
 * minute within seconds (the engine's batched writer), so an hour that ended five minutes ago no
 * longer changes and its rollup is final.
 */
export const ROLLED_HOURS_END_SQL = `date_trunc('hour', now() - interval '5 minutes')`;

/** Hours rebuilt from the minutes (the migration's fill, and the repair of a seeded history). */
export const REBUILD_EQUITY_HOURS_SQL = `
  INSERT INTO equity_hours (account_number, hour, high, high_at, low, low_at, close, balance)
  SELECT account_number, date_trunc('hour', minute),
         max(high), (array_agg(minute ORDER BY high DESC, minute))[1],
         min(low), (array_agg(minute ORDER BY low, minute))[1],
         (array_agg(close ORDER BY minute DESC))[1], (array_agg(balance ORDER BY minute DESC))[1]
    FROM equity_minutes WHERE :accountFilter AND minute < ${ROLLED_HOURS_END_SQL}
   GROUP BY account_number, date_trunc('hour', minute)
  ON CONFLICT (account_number, hour) DO UPDATE SET high = EXCLUDED.high, high_at = EXCLUDED.high_at, low = EXCLUDED.low,
    low_at = EXCLUDED.low_at, close = EXCLUDED.close, balance = EXCLUDED.balance`;
