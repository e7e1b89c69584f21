import type { Migration } from '@propdesk/kit';

/** SPEC section 12: keys may expire (set at creation or by a roll) and may have their own limits (NULL: the default). */
export const keyExpiryAndLimits: Migration = {
  name: '0002-key-expiry-and-limits',
  async up({ sql }) {
    await sql(`
      ALTER TABLE api_keys
        ADD COLUMN expires_at timestamptz NULL,
        ADD COLUMN read_per_min integer NULL CHECK (read_per_min > 0),
        ADD COLUMN write_per_min integer NULL CHECK (write_per_min > 0);
    `);
  },
};
