import type { Migration } from '@propdesk/kit';

/** The balance at the end of each UTC day with deals, kept as deals close (the report's daily history). */
export const dailyBalancesSchema: Migration = {
  name: 'trading-0003-daily-balances',
  async up({ sql }) {
    await sql(`
      CREATE TABLE daily_balances (
        account_number bigint NOT NULL REFERENCES accounts (number),
        day date NOT NULL,
        deals integer NOT NULL,
        close_balance numeric(20, 2) NOT NULL,
        last_seq bigint NOT NULL,
        PRIMARY KEY (account_number, day)
      );
    `);
  },
};
