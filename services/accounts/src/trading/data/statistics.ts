import { selectRows, toNumber, type Sequelize } from '@propdesk/kit';
import { ROLLED_HOURS_END_SQL } from './migrations/0004-equity-hours';
import type { DealTotals } from '../domain/indicators';

/** Results of a group of deals. Returns are per trade: profit / balance before the trade. */
export interface DealAggregate extends DealTotals {
  key: string;
  best: number | null;
  worst: number | null;
  startBalance: number | null;
  endBalance: number | null;
}

const nullable = (v: string | null): number | null => (v === null ? null : toNumber(v));

/**
 * Where an account's per-minute history starts: retention (equity-retention.ts) deletes the
 * minutes of whole hours once they are rolled into equity_hours, so hours before this are read
 * from the rollups. With no compaction it is at or before the first hour, and nothing changes.
 * Every history reader below takes the rollups before it and the minutes from it.
 */
const MINUTES_FROM_SQL = `coalesce((SELECT date_trunc('hour', min(minute)) FROM equity_minutes WHERE account_number = $accountNumber), 'infinity'::timestamptz)`;

/**
 * Full scan, used to rebuild the running summaries (see deal-stats.ts), never by a report.
 * Deepest fall from a running peak over the balance after each deal and the per-minute equity
 * highs and lows, starting from the initial balance (window function, no rows to the process).
 */
export async function maxDrawdown(sequelize: Sequelize, accountNumber: number): Promise<{ amount: number; pct: number }> {
  const rows = await selectRows<{ amount: string | null; pct: string | null }>(
    sequelize,
    `WITH points AS (
       SELECT created_at AS t, 0 AS ord, initial_balance AS v FROM accounts WHERE number = $accountNumber
       UNION ALL SELECT closed_at, 1, balance_after FROM deals WHERE account_number = $accountNumber
       -- Within a minute the order of its high and low is unknown: the low is placed first (against
       -- earlier peaks only), so a rebuild never reports a fall that may not have happened.
       UNION ALL SELECT minute, 2, low FROM equity_minutes WHERE account_number = $accountNumber
       UNION ALL SELECT minute + interval '59 seconds', 3, high FROM equity_minutes WHERE account_number = $accountNumber
       -- Compacted hours: their low and high at the minutes they happened. The other minutes of such
       -- an hour are gone, so a rebuild over a compacted history sees only each hour's extremes.
       UNION ALL SELECT low_at, 2, low FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
       UNION ALL SELECT high_at + interval '59 seconds', 3, high FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
     ), running AS (
       SELECT v, max(v) OVER (ORDER BY t, ord ROWS UNBOUNDED PRECEDING) AS peak FROM points
     )
     SELECT max(peak - v) AS amount, max((peak - v) / NULLIF(peak, 0)) * 100 AS pct FROM running`,
    { accountNumber },
  );
  return { amount: toNumber(rows[0]?.amount), pct: toNumber(rows[0]?.pct) };
}

export interface Streaks {
  maxConsecutiveWins: number;
  maxConsecutiveLosses: number;
  bestRunProfit: number;
  worstRunLoss: number;
  current: { kind: 'win' | 'loss' | 'flat' | 'none'; length: number };
}

/** Full scan for rebuilds: runs of wins and losses in one ordered pass (a new run starts where the sign changes), aggregated in SQL. */
export async function streaks(sequelize: Sequelize, accountNumber: number): Promise<Streaks> {
  const rows = await selectRows<{ max_wins: string; max_losses: string; best_run: string; worst_run: string; current_sign: number | null; current_length: string | null }>(
    sequelize,
    `WITH d AS (
       SELECT seq, profit::float8 AS profit, sign(profit)::int AS s, lag(sign(profit)::int) OVER (ORDER BY seq) AS prev
         FROM deals WHERE account_number = $accountNumber AND type = 'trade'
     ), g AS (
       SELECT profit, s, sum(CASE WHEN s = prev THEN 0 ELSE 1 END) OVER (ORDER BY seq) AS grp FROM d
     ), runs AS (
       SELECT s, grp, count(*) AS len, sum(profit) AS total FROM g GROUP BY s, grp
     )
     SELECT COALESCE(max(len) FILTER (WHERE s = 1), 0) AS max_wins,
            COALESCE(max(len) FILTER (WHERE s = -1), 0) AS max_losses,
            COALESCE(max(total) FILTER (WHERE s = 1), 0) AS best_run,
            COALESCE(min(total) FILTER (WHERE s = -1), 0) AS worst_run,
            (array_agg(s ORDER BY grp DESC))[1] AS current_sign,
            (array_agg(len ORDER BY grp DESC))[1] AS current_length
       FROM runs`,
    { accountNumber },
  );
  const r = rows[0];
  const sign = r?.current_sign ?? null;
  return {
    maxConsecutiveWins: toNumber(r?.max_wins),
    maxConsecutiveLosses: toNumber(r?.max_losses),
    bestRunProfit: toNumber(r?.best_run),
    worstRunLoss: toNumber(r?.worst_run),
    current: { kind: sign === null ? 'none' : sign > 0 ? 'win' : sign < 0 ? 'loss' : 'flat', length: toNumber(r?.current_length) },
  };
}

export interface DailyPoint {
  day: string;
  balance: number | null;
  equityClose: number | null;
  equityLow: number | null;
  equityHigh: number | null;
}

/** One point per day: closing balance (kept as deals close), equity close/low/high from the minute buckets. */
export async function dailyHistory(sequelize: Sequelize, accountNumber: number, maxDays: number): Promise<DailyPoint[]> {
  const rows = await selectRows<{ day: string; balance: string | null; close: string | null; low: string | null; high: string | null }>(
    sequelize,
    `WITH b AS (
       SELECT to_char(day, 'YYYY-MM-DD') AS day, close_balance AS balance FROM daily_balances WHERE account_number = $accountNumber
     ), e AS (
       SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, (array_agg(close ORDER BY t DESC))[1] AS close,
              (array_agg(balance ORDER BY t DESC))[1] AS balance, min(low) AS low, max(high) AS high
         FROM (SELECT hour AS t, close, balance, low, high FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
               UNION ALL
               SELECT minute, close, balance, low, high FROM equity_minutes WHERE account_number = $accountNumber) h
        GROUP BY 1
     )
     SELECT * FROM (
       SELECT COALESCE(b.day, e.day) AS day, COALESCE(b.balance, e.balance) AS balance, e.close, e.low, e.high
         FROM b FULL JOIN e ON e.day = b.day ORDER BY 1 DESC LIMIT $maxDays
     ) x ORDER BY day`,
    { accountNumber, maxDays },
  );
  return rows.map((r) => ({ day: r.day, balance: nullable(r.balance), equityClose: nullable(r.close), equityLow: nullable(r.low), equityHigh: nullable(r.high) }));
}

export interface CurvePoint {
  time: Date;
  equity: number;
  balance: number;
}

/** Equity curve from the per-minute buckets (close), newest `limit` within the range, oldest first. */
export async function equityCurve(sequelize: Sequelize, accountNumber: number, from: Date | null, to: Date | null, limit: number): Promise<CurvePoint[]> {
  const rows = await selectRows<{ minute: Date; close: string; balance: string }>(
    sequelize,
    `SELECT * FROM (
       SELECT minute, close, balance FROM (
         SELECT hour AS minute, close, balance FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
         UNION ALL
         SELECT minute, close, balance FROM equity_minutes WHERE account_number = $accountNumber) h
        WHERE ($from::timestamptz IS NULL OR minute >= $from::timestamptz) AND ($to::timestamptz IS NULL OR minute <= $to::timestamptz)
        ORDER BY minute DESC LIMIT $limit
     ) x ORDER BY minute`,
    { accountNumber, from, to, limit },
  );
  return rows.map((r) => ({ time: r.minute, equity: toNumber(r.close), balance: toNumber(r.balance) }));
}

/** The first and last point within the range (compacted hours, then minutes): index lookups, whatever the range holds. */
export async function equityRange(sequelize: Sequelize, accountNumber: number, from: Date | null, to: Date | null): Promise<{ first: Date | null; last: Date | null }> {
  const [row] = await selectRows<{ first: Date | null; last: Date | null }>(
    sequelize,
    `SELECT least((SELECT hour FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
                     AND ($from::timestamptz IS NULL OR hour >= $from::timestamptz) AND ($to::timestamptz IS NULL OR hour <= $to::timestamptz)
                   ORDER BY hour LIMIT 1),
                  (SELECT minute FROM equity_minutes WHERE account_number = $accountNumber
                     AND ($from::timestamptz IS NULL OR minute >= $from::timestamptz) AND ($to::timestamptz IS NULL OR minute <= $to::timestamptz)
                   ORDER BY minute LIMIT 1)) AS first,
            greatest((SELECT hour FROM equity_hours WHERE account_number = $accountNumber AND hour < ${MINUTES_FROM_SQL}
                        AND ($from::timestamptz IS NULL OR hour >= $from::timestamptz) AND ($to::timestamptz IS NULL OR hour <= $to::timestamptz)
                      ORDER BY hour DESC LIMIT 1),
                     (SELECT minute FROM equity_minutes WHERE account_number = $accountNumber
                        AND ($from::timestamptz IS NULL OR minute >= $from::timestamptz) AND ($to::timestamptz IS NULL OR minute <= $to::timestamptz)
                      ORDER BY minute DESC LIMIT 1)) AS last`,
    { accountNumber, from, to },
  );
  return { first: row?.first ?? null, last: row?.last ?? null };
}

const HOUR_SECONDS = 3600;

/** Where the account's minutes start (MINUTES_FROM_SQL), kept within [floor, ceiling + 1 ms]. */
async function minutesStart(sequelize: Sequelize, accountNumber: number, floor: Date, ceiling: Date): Promise<Date> {
  const [row] = await selectRows<{ t: Date | null }>(
    sequelize,
    `SELECT greatest($floor::timestamptz, least(${MINUTES_FROM_SQL}, $ceiling::timestamptz + interval '1 millisecond')) AS t`,
    { accountNumber, floor, ceiling },
  );
  return row?.t ?? floor;
}

/**
 * Rolls the account's completed hours that are not rolled yet (usually none, or the few since the
 * last read) and answers where its rolled hours end: minutes from there on are read as they are.
 * Concurrent readers roll the same rows; the second insert is a no-op.
 */
export async function rollEquityHours(sequelize: Sequelize, accountNumber: number): Promise<Date | null> {
  const [row] = await selectRows<{ rolled_until: Date | null }>(
    sequelize,
    `WITH since AS (
       SELECT coalesce((SELECT hour + interval '1 hour' FROM equity_hours WHERE account_number = $accountNumber ORDER BY hour DESC LIMIT 1),
                       '-infinity'::timestamptz) AS t
     ), rolled AS (
       INSERT INTO equity_hours (account_number, hour, high, high_at, low, low_at, close, balance)
       SELECT account_number, date_trunc('hour', minute),
              max(high), (array_agg(minute ORDER BY high DESC, minute))[1],
              min(low), (array_agg(minute ORDER BY low, minute))[1],
              (array_agg(close ORDER BY minute DESC))[1], (array_agg(balance ORDER BY minute DESC))[1]
         FROM equity_minutes, since
        WHERE account_number = $accountNumber AND minute >= since.t AND minute < ${ROLLED_HOURS_END_SQL}
        GROUP BY account_number, date_trunc('hour', minute)
       ON CONFLICT (account_number, hour) DO NOTHING
       RETURNING hour
     )
     SELECT greatest((SELECT max(hour) FROM rolled), (SELECT t - interval '1 hour' FROM since WHERE t > '-infinity')) + interval '1 hour' AS rolled_until`,
    { accountNumber },
  );
  return row?.rolled_until ?? null;
}

/**
 * The curve downsampled to `buckets` equal slices of [first, last]: per slice its lowest equity
 * and its highest, each at the minute it happened with the balance then, oldest first. Extremes
 * survive any zoom, so a breach never disappears between two points. Slices of an hour or more
 * read the hour rollups (about 8,800 rows a year) and the minutes after the last rolled hour;
 * shorter ones the minutes (a range that short holds a few tens of thousands at most). min/max of
 * arrays pick an extreme and its minute together, in one pass with no sort.
 */
export async function equityCurveBuckets(sequelize: Sequelize, accountNumber: number, first: Date, last: Date, buckets: number): Promise<CurvePoint[]> {
  const sliceSeconds = (last.getTime() - first.getTime()) / 1000 / buckets;
  const hourFrom = new Date(Math.floor(first.getTime() / 3_600_000) * 3_600_000);
  // Slices under an hour read no rollups where minutes exist: the hours part selects only compacted
  // hours (none without retention) and the minutes the rest of the range.
  const rolledUntil = sliceSeconds >= HOUR_SECONDS ? ((await rollEquityHours(sequelize, accountNumber)) ?? hourFrom) : await minutesStart(sequelize, accountNumber, hourFrom, last);
  const minutesFrom = rolledUntil > first ? rolledUntil : first;
  const rows = await selectRows<{ low: number[]; high: number[] }>(
    sequelize,
    `SELECT min(ARRAY[low::float8, extract(epoch FROM low_at)::float8, balance::float8]) AS low,
            max(ARRAY[high::float8, extract(epoch FROM high_at)::float8, balance::float8]) AS high
       FROM (SELECT hour AS t, low, low_at, high, high_at, balance FROM equity_hours
              WHERE account_number = $accountNumber AND hour >= $hourFrom::timestamptz AND hour < $rolledUntil::timestamptz
             UNION ALL
             SELECT minute, low, minute, high, minute, balance FROM equity_minutes
              WHERE account_number = $accountNumber AND minute >= $minutesFrom::timestamptz AND minute <= $last::timestamptz) s
      GROUP BY width_bucket(extract(epoch FROM t)::float8, extract(epoch FROM $hourFrom::timestamptz)::float8,
                            extract(epoch FROM $last::timestamptz)::float8 + 1, $buckets)`,
    { accountNumber, hourFrom, rolledUntil, minutesFrom, last, buckets },
  );
  const points: CurvePoint[] = [];
  for (const { low, high } of rows) {
    const lowPoint = { time: new Date(Number(low[1]) * 1000), equity: Number(low[0]), balance: Number(low[2]) };
    const highPoint = { time: new Date(Number(high[1]) * 1000), equity: Number(high[0]), balance: Number(high[2]) };
    if (lowPoint.time.getTime() === highPoint.time.getTime() && lowPoint.equity === highPoint.equity) points.push(lowPoint);
    else points.push(lowPoint, highPoint);
  }
  // An hour at either edge may hold minutes outside the range: its extremes there are not this range's.
  return points.filter((p) => p.time >= first && p.time <= last).sort((a, b) => a.time.getTime() - b.time.getTime());
}
