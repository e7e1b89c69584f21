import type { Migration } from '@propdesk/kit';

/** Accounts, traders, executor sessions and the event outbox. */
export const coreSchema: Migration = {
  name: '0001-core',
  async up({ sql }) {
    await sql(`
      CREATE SEQUENCE account_number_seq START 1000001;

      CREATE TABLE traders (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        name text NOT NULL,
        email text NOT NULL,
        email_normalized text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, email_normalized)
      );
      CREATE INDEX traders_org_created ON traders (organization_id, created_at, id);

      CREATE TABLE accounts (
        number bigint PRIMARY KEY DEFAULT nextval('account_number_seq'),
        organization_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'passed', 'breached', 'archived')),
        trader_id uuid NULL REFERENCES traders (id),
        program text NOT NULL,
        -- the program's evaluation terms, frozen at creation
        terms jsonb NOT NULL,
        currency text NOT NULL DEFAULT 'USD',
        initial_balance numeric(20, 2) NOT NULL,
        balance numeric(20, 2) NOT NULL,
        equity numeric(20, 2) NOT NULL,
        peak_equity numeric(20, 2) NOT NULL,
        -- AES-256-GCM sealed executor password
        executor_password_sealed text NOT NULL,
        archived_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER SEQUENCE account_number_seq OWNED BY accounts.number;
      CREATE INDEX accounts_org_number ON accounts (organization_id, number);
      CREATE INDEX accounts_org_status_number ON accounts (organization_id, status, number);
      CREATE INDEX accounts_org_trader_number ON accounts (organization_id, trader_id, number);
      CREATE INDEX accounts_org_unassigned ON accounts (organization_id, number) WHERE trader_id IS NULL;

      CREATE TABLE executor_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_number bigint NOT NULL REFERENCES accounts (number),
        token_sha256 text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      );
      CREATE INDEX executor_sessions_live ON executor_sessions (account_number) WHERE revoked_at IS NULL;

      -- The outbox: written in the same transaction as the change that causes the event.
      -- txid lets the stream hold back rows while an older transaction may still commit.
      CREATE TABLE events (
        position bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        txid xid8 NOT NULL DEFAULT pg_current_xact_id()
      );
      CREATE INDEX events_org_position ON events (organization_id, position);
      CREATE INDEX events_org_type_position ON events (organization_id, type, position);
    `);
  },
};
