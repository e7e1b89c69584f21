import type { Migration } from '@propdesk/kit';

/**
 * SPEC 14's operator controls and KYC gate in the core: an account can be halted (new orders
 * refused, evaluation going on) with the reason and time kept; a program's accounts are halted
 * together, found through (organization_id, livemode, program); a trader carries its KYC status
 * (every existing trader is unverified) and the firm's reference of the decision.
 */
export const operationsSchema: Migration = {
  name: '0007-operations',
  async up({ sql }) {
    await sql(`
      ALTER TABLE accounts ADD COLUMN trading_halted boolean NOT NULL DEFAULT false,
                           ADD COLUMN halted_reason text NULL,
                           ADD COLUMN halted_at timestamptz NULL;
      CREATE INDEX accounts_org_program ON accounts (organization_id, livemode, program);

      ALTER TABLE traders ADD COLUMN kyc_status text NOT NULL DEFAULT 'unverified'
                            CHECK (kyc_status IN ('unverified', 'pending', 'verified', 'rejected')),
                          ADD COLUMN kyc_reference text NULL,
                          ADD COLUMN kyc_updated_at timestamptz NULL;
    `);
  },
};
