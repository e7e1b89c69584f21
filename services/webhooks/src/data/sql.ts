import { QueryTypes, type Sequelize, type Transaction } from '@propdesk/kit';

export type BindValues = Record<string, unknown>;

/**
 * Raw SQL with bind parameters ($name), which pg sends as typed values: JS arrays arrive as
 * PostgreSQL arrays (for unnest) and nothing is ever spliced into the text.
 */
export function selectRows<T extends object>(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<T[]> {
  return db.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
}

export async function execute(db: Sequelize, sql: string, bind: BindValues = {}, transaction?: Transaction): Promise<void> {
  await db.query(sql, { bind, transaction });
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
