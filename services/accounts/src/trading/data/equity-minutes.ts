import { QueryTypes, type Sequelize, type Transaction } from '@propdesk/kit';
import { REBUILD_EQUITY_HOURS_SQL } from './migrations/0004-equity-hours';

/** One account's equity over one minute: open/high/low/close, and the balance at its close. */
export interface EquitySample {
  accountNumber: number;
  minute: Date;
  open: number;
  high: number;
  low: number;
  close: number;
  balance: number;
}

/**
 * Upserts per-minute equity buckets (one row per account per minute, whatever the tick rate) and,
 * in the same statement, their hour rollups: each hour's high and low with the minute they
 * happened, its last close and balance (a batch's minutes are folded per hour first, since one
 * statement may touch a row only once).
 */
export async function upsertEquityMinutes(sequelize: Sequelize, samples: EquitySample[], tx?: Transaction): Promise<void> {
  if (samples.length === 0) return;
  const sorted = [...samples].sort((a, b) => a.accountNumber - b.accountNumber || a.minute.getTime() - b.minute.getTime());
  await sequelize.query(
    `WITH s AS (
       SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[])
         AS s(account_number, minute, open, high, low, close, balance)
     ), minutes AS (
       INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
       SELECT * FROM s
       ON CONFLICT (account_number, minute) DO UPDATE SET high = GREATEST(equity_minutes.high, EXCLUDED.high),
         low = LEAST(equity_minutes.low, EXCLUDED.low), close = EXCLUDED.close, balance = EXCLUDED.balance
     )
     INSERT INTO equity_hours (account_number, hour, high, high_at, low, low_at, close, balance)
     SELECT account_number, date_trunc('hour', minute),
            max(high), (array_agg(minute ORDER BY high DESC, minute))[1],
            min(low), (array_agg(minute ORDER BY low, minute))[1],
            (array_agg(close ORDER BY minute DESC))[1], (array_agg(balance ORDER BY minute DESC))[1]
       FROM s GROUP BY account_number, date_trunc('hour', minute)
     ON CONFLICT (account_number, hour) DO UPDATE SET
       high_at = CASE WHEN EXCLUDED.high > equity_hours.high THEN EXCLUDED.high_at ELSE equity_hours.high_at END,
       high = GREATEST(equity_hours.high, EXCLUDED.high),
       low_at = CASE WHEN EXCLUDED.low < equity_hours.low THEN EXCLUDED.low_at ELSE equity_hours.low_at END,
       low = LEAST(equity_hours.low, EXCLUDED.low),
       close = EXCLUDED.close, balance = EXCLUDED.balance`,
    {
      bind: [
        sorted.map((s) => s.accountNumber),
        sorted.map((s) => s.minute.toISOString()),
        sorted.map((s) => s.open),
        sorted.map((s) => s.high),
        sorted.map((s) => s.low),
        sorted.map((s) => s.close),
        sorted.map((s) => s.balance),
      ],
      transaction: tx,
    },
  );
}

/** Rebuilds one account's hour rollups from its minutes (for histories written straight into the table). */
export async function rebuildEquityHours(sequelize: Sequelize, accountNumber: number): Promise<void> {
  await sequelize.query(REBUILD_EQUITY_HOURS_SQL.replace(':accountFilter', 'account_number = :accountNumber'), {
    replacements: { accountNumber },
    type: QueryTypes.INSERT,
  });
}
