import { execute, scopeBind, selectOne, selectRows, toNumber, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';

/** SPEC 14: a payout waits (pending, its amount reserved) for approval, or is approved when made; then it may be marked paid. */
export type PayoutStatus = 'pending' | 'approved' | 'rejected' | 'paid';

/** Who approved or rejected a payout: an API key or a panel user. */
export interface PayoutDecider {
  type: 'api_key' | 'user';
  id: string;
}

export interface Payout {
  id: string;
  seq: number;
  accountNumber: number;
  amount: number;
  profitSplitPct: number;
  traderShare: number;
  firmShare: number;
  /** The balance once the amount left it: null while pending, and for a rejected payout. */
  balanceAfter: number | null;
  createdAt: Date;
  /** The account's mode (SPEC 13). */
  livemode: boolean;
  status: PayoutStatus;
  requestedAt: Date;
  decidedAt: Date | null;
  /** Null when it needed no approval. */
  decidedBy: PayoutDecider | null;
  /** Why it was rejected. */
  reason: string | null;
  /** The firm's reference of the transfer, once paid. */
  reference: string | null;
  paidAt: Date | null;
}

interface PayoutRow {
  id: string;
  seq: string;
  account_number: string;
  amount: string;
  profit_split_pct: string;
  trader_share: string;
  firm_share: string;
  balance_after: string | null;
  created_at: Date;
  livemode: boolean;
  status: PayoutStatus;
  requested_at: Date;
  decided_at: Date | null;
  decided_by_type: PayoutDecider['type'] | null;
  decided_by_id: string | null;
  reason: string | null;
  reference: string | null;
  paid_at: Date | null;
}

const COLUMNS = `id, seq, account_number, amount, profit_split_pct, trader_share, firm_share, balance_after, created_at, livemode,
  status, requested_at, decided_at, decided_by_type, decided_by_id, reason, reference, paid_at`;

function toPayout(r: PayoutRow): Payout {
  return {
    id: r.id,
    seq: toNumber(r.seq),
    accountNumber: toNumber(r.account_number),
    amount: toNumber(r.amount),
    profitSplitPct: toNumber(r.profit_split_pct),
    traderShare: toNumber(r.trader_share),
    firmShare: toNumber(r.firm_share),
    balanceAfter: r.balance_after === null ? null : toNumber(r.balance_after),
    createdAt: r.created_at,
    livemode: r.livemode,
    status: r.status,
    requestedAt: r.requested_at,
    decidedAt: r.decided_at,
    decidedBy: r.decided_by_type && r.decided_by_id ? { type: r.decided_by_type, id: r.decided_by_id } : null,
    reason: r.reason,
    reference: r.reference,
    paidAt: r.paid_at,
  };
}

export interface NewPayout extends TenantScope {
  accountNumber: number;
  amount: number;
  profitSplitPct: number;
  traderShare: number;
  firmShare: number;
  /** pending (approval needed: no balance after yet) or approved (at once). */
  status: 'pending' | 'approved';
  balanceAfter: number | null;
  createdAt: Date;
}

export async function insertPayout(db: Sequelize, tx: Transaction, p: NewPayout): Promise<Payout> {
  const row = await selectOne<PayoutRow>(
    db,
    `INSERT INTO payouts (account_number, organization_id, livemode, amount, profit_split_pct, trader_share, firm_share, balance_after, created_at,
                          status, requested_at, decided_at)
     VALUES ($accountNumber, $organizationId, $livemode, $amount, $profitSplitPct, $traderShare, $firmShare, $balanceAfter, $createdAt,
             $status, $createdAt, CASE WHEN $status = 'approved' THEN CAST($createdAt AS timestamptz) END)
     RETURNING ${COLUMNS}`,
    { ...p },
    tx,
  );
  if (!row) throw new Error('payout not inserted');
  return toPayout(row);
}

/** What the account's pending payouts reserve (SPEC 14): a new request may claim the profit less this. */
export async function pendingPayoutTotal(db: Sequelize, tx: Transaction, accountNumber: number): Promise<number> {
  const row = await selectOne<{ total: string | null }>(
    db,
    `SELECT sum(amount) AS total FROM payouts WHERE account_number = $accountNumber AND status = 'pending'`,
    { accountNumber },
    tx,
  );
  return toNumber(row?.total ?? 0);
}

/** One payout of the scope; locked in `tx` when `forUpdate` (a decision re-reads it under the account's lock). */
export async function findPayout(db: Sequelize, scope: TenantScope, id: string, options: { tx?: Transaction; forUpdate?: boolean } = {}): Promise<Payout | null> {
  const row = await selectOne<PayoutRow>(
    db,
    `SELECT ${COLUMNS} FROM payouts WHERE id = $id AND organization_id = $org AND livemode = $livemode${options.forUpdate ? ' FOR UPDATE' : ''}`,
    { ...scopeBind(scope), id },
    options.tx,
  );
  return row ? toPayout(row) : null;
}

/** A decision on a pending payout, inside the caller's transaction (the payout row locked). */
export async function writeDecision(
  db: Sequelize,
  tx: Transaction,
  id: string,
  d: { status: 'approved' | 'rejected'; decidedAt: Date; decidedBy: PayoutDecider; balanceAfter: number | null; reason: string | null },
): Promise<Payout> {
  const row = await selectOne<PayoutRow>(
    db,
    `UPDATE payouts SET status = $status, decided_at = $decidedAt, decided_by_type = $deciderType, decided_by_id = $deciderId,
            balance_after = $balanceAfter, reason = $reason
      WHERE id = $id RETURNING ${COLUMNS}`,
    { id, status: d.status, decidedAt: d.decidedAt, deciderType: d.decidedBy.type, deciderId: d.decidedBy.id, balanceAfter: d.balanceAfter, reason: d.reason },
    tx,
  );
  if (!row) throw new Error('payout vanished under its lock');
  return toPayout(row);
}

/** An approved payout marked paid, inside the caller's transaction (the payout row locked). */
export async function writePaid(db: Sequelize, tx: Transaction, id: string, reference: string, paidAt: Date): Promise<Payout> {
  const row = await selectOne<PayoutRow>(
    db,
    `UPDATE payouts SET status = 'paid', reference = $reference, paid_at = $paidAt WHERE id = $id RETURNING ${COLUMNS}`,
    { id, reference, paidAt },
    tx,
  );
  if (!row) throw new Error('payout vanished under its lock');
  return toPayout(row);
}

/** One keyset page of an account's payouts, oldest first. */
export async function listPayouts(db: Sequelize, accountNumber: number, afterSeq: number, limit: number): Promise<Payout[]> {
  const rows = await selectRows<PayoutRow>(
    db,
    `SELECT ${COLUMNS} FROM payouts WHERE account_number = $accountNumber AND seq > $afterSeq ORDER BY seq LIMIT $limit`,
    { accountNumber, afterSeq, limit },
  );
  return rows.map(toPayout);
}

export interface PayoutFilter {
  status?: PayoutStatus;
  accountNumber?: number;
}

/**
 * One keyset page of the organization's payouts in one mode, oldest first, through
 * (organization_id, livemode[, status], seq) — or the account's own index when one is named.
 */
export async function listOrganizationPayouts(db: Sequelize, scope: TenantScope, filter: PayoutFilter, afterSeq: number, limit: number): Promise<Payout[]> {
  const where = ['organization_id = $org', 'livemode = $livemode', 'seq > $afterSeq'];
  if (filter.status) where.push('status = $status');
  if (filter.accountNumber !== undefined) where.push('account_number = $accountNumber');
  const rows = await selectRows<PayoutRow>(
    db,
    `SELECT ${COLUMNS} FROM payouts WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $limit`,
    { ...scopeBind(scope), afterSeq, limit, ...(filter.status ? { status: filter.status } : {}), ...(filter.accountNumber !== undefined ? { accountNumber: filter.accountNumber } : {}) },
  );
  return rows.map(toPayout);
}

/** A payout moves the money the day's reference and trailing_eod are measured from, by the amount. */
export async function shiftAccountDays(db: Sequelize, tx: Transaction, accountNumber: number, amount: number): Promise<void> {
  await execute(
    db,
    `UPDATE account_days SET start_of_day_balance = start_of_day_balance - $amount,
            start_of_day_equity = start_of_day_equity - $amount
      WHERE account_number = $accountNumber`,
    { accountNumber, amount },
    tx,
  );
}
