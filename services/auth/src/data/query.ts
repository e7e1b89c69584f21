import { QueryTypes, type Sequelize, type Transaction } from '@propdesk/kit';

export type Replacements = Record<string, unknown>;

/** Rows of any statement that returns rows (SELECT, or INSERT/UPDATE/DELETE ... RETURNING). */
export function selectRows<T extends object>(
  sequelize: Sequelize,
  sql: string,
  replacements: Replacements = {},
  transaction?: Transaction,
): Promise<T[]> {
  return sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements, transaction });
}

/** BIGINT arrives from pg as a string (or number for small literals); int64 in proto is a string too. */
export function bigintText(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '0' : String(value);
}
