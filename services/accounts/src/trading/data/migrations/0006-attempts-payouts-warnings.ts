import type { Migration } from '@propdesk/kit';

/**
 * SPEC 10 in the trading module: every position, deal and flag carries the attempt it belongs to
 * (stamped from the account row on insert, so no writer can forget it); the start-of-day equity
 * (daily-loss basis equity/higher); payouts of funded accounts; warnings sent, once per trading day
 * (daily) or per attempt (total).
 */
export const attemptsPayoutsWarningsSchema: Migration = {
  name: 'trading-0006-attempts-payouts-warnings',
  async up({ sql }) {
    await sql(`
      ALTER TABLE positions ADD COLUMN attempt integer NOT NULL DEFAULT 1;
      ALTER TABLE deals ADD COLUMN attempt integer NOT NULL DEFAULT 1;
      ALTER TABLE flags ADD COLUMN attempt integer NOT NULL DEFAULT 1;

      -- search_path pinned at creation: the trigger finds the accounts table whatever the inserting session's path.
      CREATE FUNCTION stamp_account_attempt() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        SELECT a.attempt INTO NEW.attempt FROM accounts a WHERE a.number = NEW.account_number;
        NEW.attempt := coalesce(NEW.attempt, 1);
        RETURN NEW;
      END
      $$;
      CREATE TRIGGER positions_attempt BEFORE INSERT ON positions FOR EACH ROW EXECUTE FUNCTION stamp_account_attempt();
      CREATE TRIGGER deals_attempt BEFORE INSERT ON deals FOR EACH ROW EXECUTE FUNCTION stamp_account_attempt();
      CREATE TRIGGER flags_attempt BEFORE INSERT ON flags FOR EACH ROW EXECUTE FUNCTION stamp_account_attempt();

      ALTER TABLE account_days ADD COLUMN start_of_day_equity numeric(20, 2) NULL;

      CREATE TABLE payouts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        account_number bigint NOT NULL REFERENCES accounts (number),
        organization_id uuid NOT NULL,
        amount numeric(20, 2) NOT NULL CHECK (amount > 0),
        profit_split_pct numeric(6, 2) NOT NULL,
        trader_share numeric(20, 2) NOT NULL,
        firm_share numeric(20, 2) NOT NULL,
        balance_after numeric(20, 2) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payouts_account ON payouts (account_number, seq);

      -- period: the trading day (daily) or 'attempt' (total): one warning per rule and period.
      CREATE TABLE account_warnings (
        account_number bigint NOT NULL REFERENCES accounts (number),
        attempt integer NOT NULL,
        rule text NOT NULL,
        period text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_number, attempt, rule, period)
      );
    `);
  },
};
