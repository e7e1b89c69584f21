import type { Sequelize, Transaction } from '@propdesk/kit';

/** Revokes every live executor session of an account inside the caller's transaction. */
export async function revokeSessionsForAccount(sequelize: Sequelize, tx: Transaction, accountNumber: number): Promise<number> {
  const [, affected] = (await sequelize.query(
    'UPDATE executor_sessions SET revoked_at = now() WHERE account_number = :n AND revoked_at IS NULL',
    { replacements: { n: accountNumber }, transaction: tx },
  )) as [unknown, number];
  return affected ?? 0;
}
