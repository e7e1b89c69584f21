import type { Migration } from '@propdesk/kit';

/**
 * A test clock's own prices (SPEC 13): the latest quote of each symbol in the clock's universe,
 * as quotes_latest is the live market's. A clock starts with the market's prices at its creation
 * and moves only by its quotes.
 */
export const testClockQuotesSchema: Migration = {
  name: 'trading-0009-test-clock-quotes',
  async up({ sql }) {
    await sql(`
      CREATE TABLE test_clock_quotes (
        clock_id text NOT NULL REFERENCES test_clocks (id),
        symbol text NOT NULL,
        bid numeric(20, 8) NOT NULL,
        ask numeric(20, 8) NOT NULL,
        time timestamptz NOT NULL,
        PRIMARY KEY (clock_id, symbol)
      );
    `);
  },
};
