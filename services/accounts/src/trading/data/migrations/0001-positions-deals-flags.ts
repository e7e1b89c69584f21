import type { Migration } from '@propdesk/kit';

/**
 * Trading engine tables. Money is numeric(20,2), prices numeric(20,8); every list keeps a
 * bigserial `seq` so pages are keyset-ordered and stable while rows are added.
 */
export const tradingSchema: Migration = {
  name: 'trading-0001-positions-deals-flags',
  async up({ sql }) {
    await sql(`
      CREATE TABLE positions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        account_number bigint NOT NULL REFERENCES accounts (number),
        organization_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'open', 'closed', 'cancelled')),
        symbol text NOT NULL,
        side text NOT NULL CHECK (side IN ('buy', 'sell')),
        volume numeric(12, 2) NOT NULL,
        type text NOT NULL CHECK (type IN ('market', 'limit', 'stop')),
        price numeric(20, 8) NULL,
        open_price numeric(20, 8) NULL,
        stop_loss numeric(20, 8) NULL,
        take_profit numeric(20, 8) NULL,
        opened_at timestamptz NULL,
        -- the trading day (rollover-adjusted) of the fill; counts toward minimum trading days
        trading_day date NULL,
        close_price numeric(20, 8) NULL,
        profit numeric(20, 2) NULL,
        closed_at timestamptz NULL,
        close_reason text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX positions_account_seq ON positions (account_number, seq);
      CREATE INDEX positions_account_status_seq ON positions (account_number, status, seq);
      CREATE INDEX positions_live ON positions (symbol) WHERE status IN ('open', 'pending');
      -- replicas poll recent changes to keep their in-memory index fresh
      CREATE INDEX positions_updated_at ON positions (updated_at);

      CREATE TABLE deals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        account_number bigint NOT NULL REFERENCES accounts (number),
        organization_id uuid NOT NULL,
        position_id uuid NOT NULL UNIQUE REFERENCES positions (id),
        symbol text NOT NULL,
        side text NOT NULL,
        volume numeric(12, 2) NOT NULL,
        open_price numeric(20, 8) NOT NULL,
        close_price numeric(20, 8) NOT NULL,
        profit numeric(20, 2) NOT NULL,
        opened_at timestamptz NOT NULL,
        closed_at timestamptz NOT NULL,
        close_reason text NOT NULL,
        balance_after numeric(20, 2) NOT NULL
      );
      CREATE INDEX deals_account_seq ON deals (account_number, seq);
      CREATE INDEX deals_account_closed ON deals (account_number, closed_at);

      CREATE TABLE flags (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        account_number bigint NOT NULL REFERENCES accounts (number),
        organization_id uuid NOT NULL,
        rule text NOT NULL,
        action text NOT NULL CHECK (action IN ('flag', 'breach')),
        reason text NOT NULL,
        evidence jsonb NOT NULL DEFAULT '{}'::jsonb,
        -- one flag per (rule, subject), e.g. weekend_holding:<position id>; NULL = no dedupe
        dedupe_key text NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX flags_account_seq ON flags (account_number, seq);

      CREATE TABLE quotes_latest (
        symbol text PRIMARY KEY,
        bid numeric(20, 8) NOT NULL,
        ask numeric(20, 8) NOT NULL,
        time timestamptz NOT NULL
      );

      -- Equity history at bounded cost: one row per account per minute (open/high/low/close).
      CREATE TABLE equity_minutes (
        account_number bigint NOT NULL REFERENCES accounts (number),
        minute timestamptz NOT NULL,
        open numeric(20, 2) NOT NULL,
        high numeric(20, 2) NOT NULL,
        low numeric(20, 2) NOT NULL,
        close numeric(20, 2) NOT NULL,
        balance numeric(20, 2) NOT NULL,
        PRIMARY KEY (account_number, minute)
      );

      CREATE TABLE account_days (
        account_number bigint NOT NULL REFERENCES accounts (number),
        day date NOT NULL,
        start_of_day_balance numeric(20, 2) NOT NULL,
        PRIMARY KEY (account_number, day)
      );
    `);
  },
};
