import { execute, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';
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
  const { sql, bind } = equityMinutesStatement(samples);
  await execute(sequelize, sql, bind, tx);
}

/** upsertEquityMinutes' statement (samples not empty), to run with others (executeTogether). */
export function equityMinutesStatement(samples: EquitySample[]): Statement {
  const sorted = [...samples].sort((a, b) => a.accountNumber - b.accountNumber || a.minute.getTime() - b.minute.getTime());
  return {
    sql: `INSERT INTO equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT * FROM unnest($numbers::bigint[], $minutes::timestamptz[], $opens::numeric[], $highs::numeric[], $lows::numeric[], $closes::numeric[], $balances::numeric[])
     ON CONFLICT (account_number, minute) DO UPDATE SET high = GREATEST(equity_minutes.high, EXCLUDED.high),
       low = LEAST(equity_minutes.low, EXCLUDED.low), close = EXCLUDED.close, balance = EXCLUDED.balance`,
    bind: {
      numbers: sorted.map((s) => s.accountNumber),
      minutes: sorted.map((s) => s.minute.toISOString()),
      opens: sorted.map((s) => s.open),
      highs: sorted.map((s) => s.high),
      lows: sorted.map((s) => s.low),
      closes: sorted.map((s) => s.close),
      balances: sorted.map((s) => s.balance),
    },
  };
}

/**
 * The hour rollups (equity_hours) are filled from the minutes, never on this write path: a mark
 * costs one upsert. Completed hours are rolled when a curve is read (rollEquityHours in
 * statistics.ts) and by the migration that created the table; this rebuilds one account's from
 * scratch, for histories written straight into the minutes.
 */
export async function rebuildEquityHours(sequelize: Sequelize, accountNumber: number): Promise<void> {
  // Hours whose minutes retention has compacted away stay as they are.
  await execute(
    sequelize,
    `DELETE FROM equity_hours WHERE account_number = $accountNumber
        AND hour >= coalesce((SELECT date_trunc('hour', min(minute)) FROM equity_minutes WHERE account_number = $accountNumber), 'infinity'::timestamptz)`,
    { accountNumber },
  );
  await execute(
    sequelize,
    REBUILD_EQUITY_HOURS_SQL.replace(':accountFilter', () => 'account_number = $accountNumber'),
    { accountNumber },
  );
}
