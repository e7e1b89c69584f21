import type { Sequelize, Transaction } from '@propdesk/kit';
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

/** Upserts per-minute equity buckets (one row per account per minute, whatever the tick rate). */
export async function upsertEquityMinutes(sequelize: Sequelize, samples: EquitySample[], tx?: Transaction): Promise<void> {
  if (samples.length === 0) return;
  const sorted = [...samples].sort((a, b) => a.accountNumber - b.accountNumber || a.minute.getTime() - b.minute.getTime());
  await sequelize.query(
    `INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[])
     ON CONFLICT (account_number, minute) DO UPDATE SET high = GREATEST(equity_minutes.high, EXCLUDED.high),
       low = LEAST(equity_minutes.low, EXCLUDED.low), close = EXCLUDED.close, balance = EXCLUDED.balance`,
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

/**
 * The hour rollups (equity_hours) are filled from the minutes, never on this write path: a mark
 * costs one upsert. Completed hours are rolled when a curve is read (rollEquityHours in
 * statistics.ts) and by the migration that created the table; this rebuilds one account's from
 * scratch, for histories written straight into the minutes.
 */
export async function rebuildEquityHours(sequelize: Sequelize, accountNumber: number): Promise<void> {
  // Hours whose minutes retention has compacted away stay as they are.
  await sequelize.query(
    `DELETE FROM equity_hours WHERE account_number = :accountNumber
        AND hour >= coalesce((SELECT date_trunc('hour', min(minute)) FROM equity_minutes WHERE account_number = :accountNumber), 'infinity'::timestamptz)`,
    { replacements: { accountNumber } },
  );
  await sequelize.query(REBUILD_EQUITY_HOURS_SQL.replace(':accountFilter', 'account_number = :accountNumber'), { replacements: { accountNumber } });
}
