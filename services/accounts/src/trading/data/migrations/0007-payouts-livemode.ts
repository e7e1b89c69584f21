import type { Migration } from '@propdesk/kit';

/** A payout carries its account's mode (SPEC 13); payouts are listed per account, whose mode is checked first. */
export const payoutsLivemodeSchema: Migration = {
  name: 'trading-0007-payouts-livemode',
  async up({ sql }) {
    await sql(`ALTER TABLE payouts ADD COLUMN livemode boolean NOT NULL DEFAULT true;`);
  },
};
