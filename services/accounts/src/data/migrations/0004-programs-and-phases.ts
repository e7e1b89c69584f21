import type { Migration } from '@propdesk/kit';

/**
 * Programs as data (SPEC section 10): an organization's programs and their frozen versions; the
 * account gains its program version, phase, attempt and the links between phase accounts.
 */
export const programsAndPhases: Migration = {
  name: '0004-programs-and-phases',
  async up({ sql }) {
    await sql(`
      CREATE TABLE programs (
        organization_id uuid NOT NULL,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        latest_version integer NOT NULL CHECK (latest_version >= 1),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, name)
      );

      -- A version is never changed once written: accounts freeze (name, version).
      CREATE TABLE program_versions (
        organization_id uuid NOT NULL,
        name text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        description text NOT NULL DEFAULT '',
        currency text NOT NULL DEFAULT 'USD',
        initial_balance numeric(20, 2) NOT NULL,
        -- the phases in their REST shape, every default filled in
        phases jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, name, version),
        FOREIGN KEY (organization_id, name) REFERENCES programs (organization_id, name)
      );

      ALTER TABLE accounts
        ADD COLUMN program_version integer NOT NULL DEFAULT 1,
        ADD COLUMN phase_index integer NOT NULL DEFAULT 0,
        ADD COLUMN phase_name text NOT NULL DEFAULT 'evaluation',
        ADD COLUMN phase_kind text NOT NULL DEFAULT 'evaluation' CHECK (phase_kind IN ('evaluation', 'funded')),
        ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
        -- when the current attempt (or phase) began: trading days and payouts count from it
        ADD COLUMN attempt_started_at timestamptz NOT NULL DEFAULT now(),
        -- the last payout of a funded account (trading days for the next payout count from it)
        ADD COLUMN payout_at timestamptz NULL,
        -- one next account per pass, whichever replica provisions it
        ADD COLUMN previous_account bigint NULL UNIQUE REFERENCES accounts (number),
        ADD COLUMN next_account bigint NULL;
      UPDATE accounts SET attempt_started_at = created_at;
    `);
  },
};
