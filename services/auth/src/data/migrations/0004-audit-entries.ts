import { AUDIT_ENTRIES_DDL, type Migration } from '@propdesk/kit';

/** The audit log of the auth service's changes (SPEC 14): API keys, users, organizations. Append-only (kit audit-table.ts). */
export const auditEntries: Migration = {
  name: '0004-audit-entries',
  async up({ sql }) {
    await sql(AUDIT_ENTRIES_DDL);
  },
};
