import { AUDIT_ENTRIES_DDL, type Migration } from '@propdesk/kit';

/**
 * The audit log of the accounts service's changes (SPEC 14): accounts, traders, programs, payouts,
 * positions. Append-only (kit audit-table.ts). And an account's timeline (its events and its audit
 * entries, newest first) reads its events through their `account` (data->>'account'), in the same
 * order as the audit entries: (created_at, id) descending, ids bytewise.
 */
export const auditEntries: Migration = {
  name: '0010-audit-entries',
  async up({ sql }) {
    await sql(AUDIT_ENTRIES_DDL);
    await sql(`CREATE INDEX events_account_timeline ON events (organization_id, livemode, (data->>'account'), created_at DESC, id COLLATE "C" DESC)`);
  },
};
