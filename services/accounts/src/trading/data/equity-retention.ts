import { affectedRows, deleteInBatches, execute, type Sequelize } from '@propdesk/kit';
import { ROLLED_HOURS_END_SQL } from './migrations/0004-equity-hours';

/**
 * Retention of the equity history: per-minute buckets of whole hours older than the cutoff are
 * rolled into equity_hours (if a reader has not done it yet) and then deleted. Every reader of the
 * history (statistics.ts) reads the rollups where the minutes are gone, so the report's figures
 * (daily close, low, high, balance) stay the same; the raw equity curve of that period gets one
 * point per hour instead of per minute. Answers the number of minute rows deleted.
 */
export async function compactEquityMinutes(sequelize: Sequelize, cutoff: Date): Promise<number> {
  const bind = { cutoff };
  const end = `least(date_trunc('hour', $cutoff::timestamptz), ${ROLLED_HOURS_END_SQL})`;
  await execute(
    sequelize,
    `INSERT INTO equity_hours (account_number, hour, high, high_at, low, low_at, close, balance)
     SELECT account_number, date_trunc('hour', minute),
            max(high), (array_agg(minute ORDER BY high DESC, minute))[1],
            min(low), (array_agg(minute ORDER BY low, minute))[1],
            (array_agg(close ORDER BY minute DESC))[1], (array_agg(balance ORDER BY minute DESC))[1]
       FROM equity_minutes WHERE minute < ${end}
      GROUP BY account_number, date_trunc('hour', minute)
     ON CONFLICT (account_number, hour) DO NOTHING`,
    bind,
  );
  return deleteInBatches((batch) =>
    affectedRows(
      sequelize,
      `DELETE FROM equity_minutes WHERE (account_number, minute) IN (
         SELECT m.account_number, m.minute FROM equity_minutes m
           JOIN equity_hours h ON h.account_number = m.account_number AND h.hour = date_trunc('hour', m.minute)
          WHERE m.minute < ${end} LIMIT $batch)`,
      { ...bind, batch },
    ),
  );
}
