import type { Migration } from '@propdesk/kit';

/**
 * The trading engine's replicas, one lease each: renewed every second or so, expired after a few.
 * The live leases are the membership the replicas partition accounts over (engine/ring.ts); a
 * replica that dies stops renewing and its accounts move once its lease expires.
 */
export const engineLeasesSchema: Migration = {
  name: 'trading-0005-engine-leases',
  async up({ sql }) {
    await sql(`
      CREATE TABLE engine_leases (
        replica_id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
    `);
  },
};
