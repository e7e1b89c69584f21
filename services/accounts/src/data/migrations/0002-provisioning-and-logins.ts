import type { Migration } from '@propdesk/kit';

/** The credit-reservation saga's intents, executor login failures, and the assigned-accounts index. */
export const provisioningAndLogins: Migration = {
  name: '0002-provisioning-and-logins',
  async up({ sql }) {
    await sql(`
      -- One row per CreateAccounts call; id is the auth reservation_id. pending -> done (same tx as
      -- the accounts) -> confirmed; or pending -> aborting -> aborted (reservation cancelled).
      CREATE TABLE provisioning_intents (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        count integer NOT NULL CHECK (count > 0),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'confirmed', 'aborting', 'aborted')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX provisioning_intents_unresolved ON provisioning_intents (created_at)
        WHERE status IN ('pending', 'done', 'aborting');

      -- Sliding-window counters of failed executor logins (kind: account | ip).
      CREATE TABLE executor_login_failures (
        id bigserial PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('account', 'ip')),
        key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX executor_login_failures_key ON executor_login_failures (kind, key, created_at);
      CREATE INDEX executor_login_failures_created ON executor_login_failures (created_at);

      -- assigned=true pages stay flat even when almost every account is unassigned.
      CREATE INDEX accounts_org_assigned ON accounts (organization_id, number) WHERE trader_id IS NOT NULL;
      CREATE INDEX accounts_claimable ON accounts (organization_id, number) WHERE trader_id IS NULL AND status = 'active';
    `);
  },
};
