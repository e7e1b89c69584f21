import { scopeBind, selectOne, selectRows, type Sequelize, type TenantScope, type Transaction } from '@propdesk/kit';
import type { KycStatus, Trader } from '../domain/account';
import type { TraderInput } from '../domain/validation';

interface TraderRow {
  id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  email: string;
  created_at: Date;
  /** created_at with microseconds, for keyset cursors (a JS Date keeps only milliseconds). */
  created_key: string;
  kyc_status: KycStatus;
  kyc_reference: string | null;
}

const TRADER_COLUMNS = `id, organization_id, livemode, name, email, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key, kyc_status, kyc_reference`;

function toTrader(row: TraderRow): Trader {
  return {
    id: row.id,
    organizationId: row.organization_id,
    livemode: row.livemode,
    name: row.name,
    email: row.email,
    createdAt: row.created_at,
    kycStatus: row.kyc_status,
    kycReference: row.kyc_reference,
  };
}

/**
 * Finds the trader by normalized email or creates it, in the scope's mode (an email is unique per
 * organization and mode: a test trader never is, nor becomes, a live one). An existing trader
 * keeps its name. ON CONFLICT makes concurrent creators of the same email agree on one row.
 */
export async function findOrCreateTrader(
  sequelize: Sequelize,
  scope: TenantScope,
  input: TraderInput,
  transaction?: Transaction,
): Promise<{ trader: Trader; created: boolean }> {
  const inserted = await selectOne<TraderRow>(
    sequelize,
    `INSERT INTO traders (organization_id, livemode, name, email, email_normalized) VALUES ($org, $livemode, $name, $email, $normalized)
     ON CONFLICT (organization_id, livemode, email_normalized) DO NOTHING RETURNING ${TRADER_COLUMNS}`,
    { ...scopeBind(scope), name: input.name, email: input.email, normalized: input.emailNormalized },
    transaction,
  );
  if (inserted) return { trader: toTrader(inserted), created: true };
  const existing = await selectRows<TraderRow>(
    sequelize,
    `SELECT ${TRADER_COLUMNS} FROM traders WHERE organization_id = $org AND livemode = $livemode AND email_normalized = $normalized`,
    { ...scopeBind(scope), normalized: input.emailNormalized },
    transaction,
  );
  return { trader: toTrader(existing[0]), created: false };
}

export async function findTrader(sequelize: Sequelize, scope: TenantScope, id: string, transaction?: Transaction): Promise<Trader | null> {
  const row = await selectOne<TraderRow>(
    sequelize,
    `SELECT ${TRADER_COLUMNS} FROM traders WHERE organization_id = $org AND livemode = $livemode AND id = $id`,
    { ...scopeBind(scope), id },
    transaction,
  );
  return row ? toTrader(row) : null;
}

export interface TraderPosition {
  t: string;
  id: string;
}

/** Keyset page by (created_at, id); returns each trader with its cursor position. */
export async function listTraders(
  sequelize: Sequelize,
  scope: TenantScope,
  after: TraderPosition | null,
  limit: number,
): Promise<Array<{ trader: Trader; position: TraderPosition }>> {
  const rows = await selectRows<TraderRow>(
    sequelize,
    `SELECT ${TRADER_COLUMNS} FROM traders
      WHERE organization_id = $org AND livemode = $livemode ${after ? 'AND (created_at, id) > ($t::timestamptz, $id::uuid)' : ''}
      ORDER BY created_at, id LIMIT $limit`,
    after ? { ...scopeBind(scope), limit, t: after.t, id: after.id } : { ...scopeBind(scope), limit },
  );
  return rows.map((row) => ({ trader: toTrader(row), position: { t: row.created_key, id: row.id } }));
}

/** The scope's traders among the given ids or normalized emails, oldest first. */
export async function findTradersByIdOrEmail(sequelize: Sequelize, scope: TenantScope, ids: string[], emailsNormalized: string[]): Promise<Trader[]> {
  if (ids.length === 0 && emailsNormalized.length === 0) return [];
  const rows = await selectRows<TraderRow>(
    sequelize,
    `SELECT ${TRADER_COLUMNS} FROM traders
      WHERE organization_id = $org AND livemode = $livemode AND (id = ANY($ids::uuid[]) OR email_normalized = ANY($emails::text[]))
      ORDER BY created_at, id`,
    { ...scopeBind(scope), ids, emails: emailsNormalized },
  );
  return rows.map(toTrader);
}

/** The trader of the scope, locked for a change in `transaction` (null: none such). */
export async function lockTrader(sequelize: Sequelize, scope: TenantScope, id: string, transaction: Transaction): Promise<Trader | null> {
  const row = await selectOne<TraderRow>(
    sequelize,
    `SELECT ${TRADER_COLUMNS} FROM traders WHERE organization_id = $org AND livemode = $livemode AND id = $id FOR NO KEY UPDATE`,
    { ...scopeBind(scope), id },
    transaction,
  );
  return row ? toTrader(row) : null;
}

/** SPEC 14: the trader's KYC status and the reference of the decision (null: none given). */
export async function writeTraderKyc(
  sequelize: Sequelize,
  transaction: Transaction,
  id: string,
  status: KycStatus,
  reference: string | null,
): Promise<Trader> {
  const row = await selectOne<TraderRow>(
    sequelize,
    `UPDATE traders SET kyc_status = $status, kyc_reference = $reference, kyc_updated_at = now() WHERE id = $id RETURNING ${TRADER_COLUMNS}`,
    { id, status, reference },
    transaction,
  );
  if (!row) throw new Error('trader vanished under its lock');
  return toTrader(row);
}

/** The KYC status of an account's trader (the payout gate, SPEC 14); null when the account has none. */
export async function kycStatusOf(sequelize: Sequelize, traderId: string | null, transaction?: Transaction): Promise<KycStatus | null> {
  if (traderId === null) return null;
  const row = await selectOne<{ kyc_status: KycStatus }>(sequelize, 'SELECT kyc_status FROM traders WHERE id = $id', { id: traderId }, transaction);
  return row?.kyc_status ?? null;
}
