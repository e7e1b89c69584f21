import type { Migration } from '@propdesk/kit';

/**
 * Report aggregates kept as deals close (same transaction), so a report reads a few hundred
 * summary rows instead of scanning every deal: per (month, side, symbol) totals, and one row of
 * running figures (streaks, drawdown) per account.
 */
export const tradingStatsSchema: Migration = {
  name: 'trading-0002-stats',
  async up({ sql }) {
    await sql(`
      CREATE TABLE deal_stats (
        account_number bigint NOT NULL REFERENCES accounts (number),
        month date NOT NULL,
        side text NOT NULL,
        symbol text NOT NULL,
        trades integer NOT NULL,
        wins integer NOT NULL,
        losses integer NOT NULL,
        gross_profit numeric(20, 2) NOT NULL,
        gross_loss numeric(20, 2) NOT NULL,
        lots numeric(20, 2) NOT NULL,
        -- per-trade returns (profit / balance before) for the Sharpe ratio: sum and sum of squares
        sum_return float8 NOT NULL,
        sum_return_sq float8 NOT NULL,
        best numeric(20, 2) NOT NULL,
        worst numeric(20, 2) NOT NULL,
        first_seq bigint NOT NULL,
        last_seq bigint NOT NULL,
        PRIMARY KEY (account_number, month, side, symbol)
      );

      CREATE TABLE account_trading_stats (
        account_number bigint PRIMARY KEY REFERENCES accounts (number),
        current_sign integer NOT NULL,
        current_length integer NOT NULL,
        current_total numeric(20, 2) NOT NULL,
        max_wins integer NOT NULL,
        max_losses integer NOT NULL,
        best_run numeric(20, 2) NOT NULL,
        worst_run numeric(20, 2) NOT NULL,
        peak_balance numeric(20, 2) NOT NULL,
        max_drawdown numeric(20, 2) NOT NULL,
        max_drawdown_pct float8 NOT NULL
      );
    `);
  },
};
