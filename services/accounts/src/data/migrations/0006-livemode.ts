import type { Migration } from '@propdesk/kit';

/**
 * Test mode (SPEC 13) is a partition of every organization: accounts, traders, programs and
 * events gain `livemode` (everything that exists is live) and the mode becomes part of every
 * scope. Indexes that led with organization_id now lead with (organization_id, livemode), so a
 * page of one mode costs the same however many rows the other holds (keyset paging stays
 * O(page) in either). Account numbers stay unique across modes (one sequence); trader emails and
 * program names are unique per (organization, mode).
 */
export const livemodePartition: Migration = {
  name: '0006-livemode',
  async up({ sql }) {
    await sql(`
      ALTER TABLE accounts ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      DROP INDEX accounts_org_number, accounts_org_status_number, accounts_org_trader_number, accounts_org_unassigned,
                 accounts_org_assigned, accounts_claimable;
      CREATE INDEX accounts_org_number ON accounts (organization_id, livemode, number);
      CREATE INDEX accounts_org_status_number ON accounts (organization_id, livemode, status, number);
      CREATE INDEX accounts_org_trader_number ON accounts (organization_id, livemode, trader_id, number);
      CREATE INDEX accounts_org_unassigned ON accounts (organization_id, livemode, number) WHERE trader_id IS NULL;
      CREATE INDEX accounts_org_assigned ON accounts (organization_id, livemode, number) WHERE trader_id IS NOT NULL;
      CREATE INDEX accounts_claimable ON accounts (organization_id, livemode, number) WHERE trader_id IS NULL AND status = 'active';

      ALTER TABLE traders ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      ALTER TABLE traders DROP CONSTRAINT traders_organization_id_email_normalized_key;
      ALTER TABLE traders ADD CONSTRAINT traders_org_mode_email UNIQUE (organization_id, livemode, email_normalized);
      DROP INDEX traders_org_created;
      CREATE INDEX traders_org_created ON traders (organization_id, livemode, created_at, id);

      ALTER TABLE events ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      DROP INDEX events_org_position, events_org_type_position;
      CREATE INDEX events_org_position ON events (organization_id, livemode, position);
      CREATE INDEX events_org_type_position ON events (organization_id, livemode, type, position);

      ALTER TABLE program_versions DROP CONSTRAINT program_versions_organization_id_name_fkey;
      ALTER TABLE programs ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      ALTER TABLE program_versions ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      ALTER TABLE programs DROP CONSTRAINT programs_pkey;
      ALTER TABLE programs ADD PRIMARY KEY (organization_id, livemode, name);
      ALTER TABLE program_versions DROP CONSTRAINT program_versions_pkey;
      ALTER TABLE program_versions ADD PRIMARY KEY (organization_id, livemode, name, version);
      ALTER TABLE program_versions ADD FOREIGN KEY (organization_id, livemode, name) REFERENCES programs (organization_id, livemode, name);
    `);
  },
};
