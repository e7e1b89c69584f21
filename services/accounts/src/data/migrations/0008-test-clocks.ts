import type { Migration } from '@propdesk/kit';

/**
 * Test clocks (SPEC 13): a test-mode object of the organization, and the clock an account lives
 * on. While a clock advances, `frozen_time` is the walk's progress and `advance_to` its end; the
 * replica walking it holds it by `runner` until `lease_expires_at` (renewed at every step), so a
 * walk whose process died is taken over and resumed from its progress.
 */
export const testClocksSchema: Migration = {
  name: '0008-test-clocks',
  async up({ sql }) {
    await sql(`
      CREATE TABLE test_clocks (
        id text PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        livemode boolean NOT NULL DEFAULT false CHECK (NOT livemode),
        name text NULL,
        frozen_time timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'advancing')),
        advance_to timestamptz NULL,
        runner text NULL,
        lease_expires_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz NULL,
        CHECK ((status = 'advancing') = (advance_to IS NOT NULL))
      );
      CREATE INDEX test_clocks_org_seq ON test_clocks (organization_id, livemode, seq) WHERE deleted_at IS NULL;
      CREATE INDEX test_clocks_advancing ON test_clocks (seq) WHERE status = 'advancing' AND deleted_at IS NULL;

      ALTER TABLE accounts ADD COLUMN test_clock_id text NULL REFERENCES test_clocks (id);
      CREATE INDEX accounts_test_clock ON accounts (test_clock_id, number) WHERE test_clock_id IS NOT NULL;
    `);
  },
};
