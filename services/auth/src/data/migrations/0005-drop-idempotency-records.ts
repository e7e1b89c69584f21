import type { Migration } from '@propdesk/kit';

/**
 * The gateway's idempotency records go: a key's answer is recorded only by the service that owns
 * the write, in the write's own transaction (kit idempotency.ts), and nothing reads this table.
 */
export const dropIdempotencyRecords: Migration = {
  name: '0005-drop-idempotency-records',
  async up({ sql }) {
    await sql('DROP TABLE IF EXISTS idempotency_records');
  },
};
