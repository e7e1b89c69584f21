import type { Migration } from '@propdesk/kit';

/**
 * The trading days of an attempt (min_trading_days, analytics, the report's terms, every verdict)
 * are counted by skipping from one day to the next in this index (data/positions.ts
 * countTradingDays): a few hundred probes for a year, where a count over the positions read every
 * one of an account's positions (100,000 for a busy account: ~50 ms, inside the verdict's lock).
 * Built in place: writes to positions wait while it builds (seconds per million rows).
 */
export const tradingDaysIndexSchema: Migration = {
  name: 'trading-0007-trading-days-index',
  async up({ sql }) {
    await sql(`
      CREATE INDEX IF NOT EXISTS positions_account_attempt_day ON positions (account_number, attempt, trading_day) WHERE trading_day IS NOT NULL;
    `);
  },
};
