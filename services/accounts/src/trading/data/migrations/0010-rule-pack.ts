import type { Migration } from '@propdesk/kit';

/**
 * SPEC 15, the rule pack:
 *  - news_events: an organization's news calendar, per mode; listed by time, and read by the
 *    news blackout around an order's time (organization, mode, time).
 *  - account_locks: an account locked for the rest of its trading day by its daily loss
 *    (daily_lock) or its profit cap (daily_profit_cap), until the next trading day's start, in
 *    the attempt that crossed it.
 *  - rule_deadlines: the moment each time rule acts for an account (time_limit, inactivity,
 *    session_end, lock_expiry), one row per account and rule, kept when the moment changes (a
 *    phase or attempt starts, a position is opened under a session rule, a lock is set). The live
 *    market's rows are taken in due order by a scheduler (FOR UPDATE SKIP LOCKED), a test clock's
 *    by its advance: an account costs nothing until its moment comes.
 */
export const rulePackSchema: Migration = {
  name: 'trading-0010-rule-pack',
  async up({ sql }) {
    await sql(`
      CREATE TABLE news_events (
        id text PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        livemode boolean NOT NULL,
        title text NOT NULL,
        time timestamptz NOT NULL,
        currencies text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX news_events_by_time ON news_events (organization_id, livemode, time, seq);

      CREATE TABLE account_locks (
        account_number bigint PRIMARY KEY REFERENCES accounts (number),
        attempt integer NOT NULL,
        rule text NOT NULL CHECK (rule IN ('daily_lock', 'daily_profit_cap')),
        until timestamptz NOT NULL,
        locked_at timestamptz NOT NULL
      );

      CREATE TABLE rule_deadlines (
        account_number bigint NOT NULL REFERENCES accounts (number),
        rule text NOT NULL CHECK (rule IN ('time_limit', 'inactivity', 'session_end', 'lock_expiry')),
        due_at timestamptz NOT NULL,
        test_clock_id text NULL,
        PRIMARY KEY (account_number, rule)
      );
      CREATE INDEX rule_deadlines_due ON rule_deadlines (due_at, account_number) WHERE test_clock_id IS NULL;
      CREATE INDEX rule_deadlines_clock_due ON rule_deadlines (test_clock_id, due_at) WHERE test_clock_id IS NOT NULL;
    `);
  },
};
