import { IDEMPOTENCY_RECORDS_DDL, type Migration } from '@propdesk/kit';

/**
 * Idempotency-Key records of the service's writes (kit idempotency.ts): the key is taken in the
 * same transaction as the effect, with the answer, so a retry after any crash replays it.
 */
export const idempotencyRecords: Migration = {
  name: '0003-idempotency-records',
  async up({ sql }) {
    await sql(IDEMPOTENCY_RECORDS_DDL);
  },
};
