import type { Migration } from '@propdesk/kit';

/**
 * Keys have a mode (SPEC 13): a test key (pfx_test_) acts on its organization's test partition.
 * Existing keys are live. The panel lists one mode's keys at a time, so the list index leads with
 * (organization_id, livemode).
 */
export const keyMode: Migration = {
  name: '0003-key-mode',
  async up({ sql }) {
    await sql(`
      ALTER TABLE api_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
      DROP INDEX api_keys_org_seq;
      CREATE INDEX api_keys_org_seq ON api_keys (organization_id, livemode, list_seq);
    `);
  },
};
