import type { Migration } from '@propdesk/kit';

/**
 * SPEC 14 in the trading module:
 *  - payouts go through states (pending, approved, rejected, paid) with who decided, why, the
 *    transfer's reference and when; every payout made so far was approved when created. A pending
 *    payout has no balance after it yet. The organization's list pages through
 *    (organization_id, livemode[, status], seq).
 *  - a deal is a trade or a balance adjustment; an adjustment has no position, symbol, side,
 *    volume, prices or opening time (a trade still must have them all), and keeps its reason.
 *  - a reinstated breach stays in the flags with when and why it was reinstated.
 */
export const operationsSchema: Migration = {
  name: 'trading-0008-operations',
  async up({ sql }) {
    await sql(`
      ALTER TABLE payouts ADD COLUMN status text NOT NULL DEFAULT 'approved' CHECK (status IN ('pending', 'approved', 'rejected', 'paid')),
                          ADD COLUMN requested_at timestamptz NULL,
                          ADD COLUMN decided_at timestamptz NULL,
                          ADD COLUMN decided_by_type text NULL CHECK (decided_by_type IN ('api_key', 'user')),
                          ADD COLUMN decided_by_id text NULL,
                          ADD COLUMN reason text NULL,
                          ADD COLUMN reference text NULL,
                          ADD COLUMN paid_at timestamptz NULL,
                          ALTER COLUMN balance_after DROP NOT NULL;
      UPDATE payouts SET requested_at = created_at, decided_at = created_at;
      ALTER TABLE payouts ALTER COLUMN requested_at SET NOT NULL;
      CREATE INDEX payouts_org_seq ON payouts (organization_id, livemode, seq);
      CREATE INDEX payouts_org_status_seq ON payouts (organization_id, livemode, status, seq);
      CREATE INDEX payouts_pending ON payouts (account_number) WHERE status = 'pending';

      ALTER TABLE deals ADD COLUMN type text NOT NULL DEFAULT 'trade' CHECK (type IN ('trade', 'balance')),
                        ADD COLUMN reason text NULL,
                        ALTER COLUMN position_id DROP NOT NULL,
                        ALTER COLUMN symbol DROP NOT NULL,
                        ALTER COLUMN side DROP NOT NULL,
                        ALTER COLUMN volume DROP NOT NULL,
                        ALTER COLUMN open_price DROP NOT NULL,
                        ALTER COLUMN close_price DROP NOT NULL,
                        ALTER COLUMN opened_at DROP NOT NULL,
                        -- A trade's position on its own: a close of a position no longer open (no position_id) fails naming it.
                        ADD CONSTRAINT deals_trade_position_id CHECK (type = 'balance' OR position_id IS NOT NULL),
                        ADD CONSTRAINT deals_trade_complete CHECK (
                          type = 'balance' OR (symbol IS NOT NULL AND side IS NOT NULL AND volume IS NOT NULL
                                               AND open_price IS NOT NULL AND close_price IS NOT NULL AND opened_at IS NOT NULL));

      ALTER TABLE flags ADD COLUMN reinstated_at timestamptz NULL,
                        ADD COLUMN reinstated_reason text NULL;
    `);
  },
};
