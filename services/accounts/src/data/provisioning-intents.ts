import { execute, selectRows, type Sequelize, type Transaction } from '@propdesk/kit';

export type IntentStatus = 'pending' | 'done' | 'confirmed' | 'aborting' | 'aborted';

export interface ProvisioningIntent {
  id: string;
  organizationId: string;
  count: number;
  status: IntentStatus;
}

interface IntentRow {
  id: string;
  organization_id: string;
  count: number;
  status: IntentStatus;
}

const toIntent = (row: IntentRow): ProvisioningIntent => ({
  id: row.id,
  organizationId: row.organization_id,
  count: row.count,
  status: row.status,
});

/** Committed on its own before credits are reserved, so a crash after reserving is recoverable. */
export async function insertIntent(sequelize: Sequelize, id: string, org: string, count: number): Promise<void> {
  await execute(sequelize, 'INSERT INTO provisioning_intents (id, organization_id, count) VALUES ($id, $org, $count)', { id, org, count });
}

/**
 * Moves an intent between states only from the expected ones; returns false when another actor
 * (the request or the recovery loop) got there first. Inside the provisioning transaction the
 * row lock makes the recovery loop wait for the outcome.
 */
export async function transitionIntent(
  sequelize: Sequelize,
  id: string,
  from: IntentStatus[],
  to: IntentStatus,
  transaction?: Transaction,
): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    sequelize,
    `UPDATE provisioning_intents SET status = $to, updated_at = now() WHERE id = $id AND status = ANY($from) RETURNING id`,
    { id, from, to },
    transaction,
  );
  return rows.length === 1;
}

/** Intents a crash or a failed call left behind: stale pending ones, unconfirmed done ones, half-aborted ones. */
export async function findUnresolvedIntents(sequelize: Sequelize, staleAfterMs: number, limit = 100): Promise<ProvisioningIntent[]> {
  const rows = await selectRows<IntentRow>(
    sequelize,
    `SELECT id, organization_id, count, status FROM provisioning_intents
      WHERE status IN ('pending', 'done', 'aborting') AND created_at < now() - make_interval(secs => $stale)
      ORDER BY created_at LIMIT $limit`,
    { stale: staleAfterMs / 1000, limit },
  );
  return rows.map(toIntent);
}
