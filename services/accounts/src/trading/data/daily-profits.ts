import { selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';
import type { TradingCalendar } from '../domain/calendar';

/**
 * A calendar's days from `from` to `to` as SQL binds: their starts (ascending) and labels, so that
 * a deal's day is `labels[width_bucket(closed_at, starts)]` (the last start at or before it). The
 * days are the domain's (calendar.ts), daylight saving included; SQL only looks them up.
 */
function dayBuckets(calendar: TradingCalendar, from: Date, to: Date): { starts: Date[]; labels: string[] } {
  const days = calendar.daysBetween(from, to);
  return { starts: days.map((d) => d.start), labels: days.map((d) => d.day) };
}

const DEAL_DAY = '(CAST($labels AS text[]))[width_bucket(d.closed_at, CAST($starts AS timestamptz[]))]';

/**
 * The closed profit of each trading day of the account's current attempt (the day a deal closed,
 * in the phase's trading day `calendar`, up to `now`), oldest first: what the consistency rule
 * weighs. Trades only: a balance adjustment (SPEC 14) is no trading day's profit.
 */
export async function dailyProfits(
  db: Sequelize,
  account: { number: number; attemptStartedAt: Date },
  calendar: TradingCalendar,
  now: Date,
  tx?: Transaction,
  since?: Date,
): Promise<Array<{ day: string; profit: number }>> {
  const from = since && since.getTime() > account.attemptStartedAt.getTime() ? since : account.attemptStartedAt;
  const rows = await selectRows<{ day: string; profit: string }>(
    db,
    `SELECT ${DEAL_DAY} AS day, sum(d.profit) AS profit
       FROM deals d JOIN accounts a ON a.number = d.account_number AND a.attempt = d.attempt
      WHERE d.account_number = $accountNumber AND d.type = 'trade' AND d.closed_at >= greatest(a.attempt_started_at, CAST($since AS timestamptz))
      GROUP BY 1 ORDER BY 1`,
    { accountNumber: account.number, since: since ?? null, ...dayBuckets(calendar, from, maxDate(from, now)) },
    tx,
  );
  return rows.map((r) => ({ day: r.day, profit: toNumber(r.profit) }));
}

const maxDate = (a: Date, b: Date): Date => (a.getTime() > b.getTime() ? a : b);

/** The days' profits with today's floating profit added to today (what passing now would book). */
export function withToday(days: Array<{ day: string; profit: number }>, today: string, floating: number): number[] {
  const profits = new Map(days.map((d) => [d.day, d.profit]));
  profits.set(today, (profits.get(today) ?? 0) + floating);
  return [...profits.values()];
}

/** Trading days (days a position was opened) of the current attempt since an instant. */
export async function tradingDaysSince(db: Sequelize, accountNumber: number, since: Date, tx?: Transaction): Promise<number> {
  const rows = await selectRows<{ n: string }>(
    db,
    `SELECT count(DISTINCT p.trading_day) AS n FROM positions p JOIN accounts a ON a.number = p.account_number AND a.attempt = p.attempt
      WHERE p.account_number = $accountNumber AND p.trading_day IS NOT NULL AND p.opened_at >= $since`,
    { accountNumber, since },
    tx,
  );
  return toNumber(rows[0]?.n);
}

/** dailyProfits of many accounts (the engine's reloads of accounts with a consistency rule): one statement per trading-day calendar. */
export async function dailyProfitsOf(
  db: Sequelize,
  accounts: ReadonlyArray<{ number: number; calendar: TradingCalendar; since: Date }>,
  now: Date,
): Promise<Map<number, Array<{ day: string; profit: number }>>> {
  const result = new Map<number, Array<{ day: string; profit: number }>>();
  const byCalendar = new Map<TradingCalendar, Array<{ number: number; since: Date }>>();
  for (const a of accounts) byCalendar.set(a.calendar, [...(byCalendar.get(a.calendar) ?? []), a]);
  for (const [calendar, group] of byCalendar) {
    const from = new Date(Math.min(...group.map((a) => a.since.getTime())));
    const rows = await selectRows<{ account_number: string; day: string; profit: string }>(
      db,
      `SELECT d.account_number, ${DEAL_DAY} AS day, sum(d.profit) AS profit
         FROM deals d JOIN accounts a ON a.number = d.account_number AND a.attempt = d.attempt
        WHERE d.account_number = ANY($numbers::bigint[]) AND d.type = 'trade' AND d.closed_at >= a.attempt_started_at
        GROUP BY 1, 2 ORDER BY 1, 2`,
      { numbers: group.map((a) => a.number), ...dayBuckets(calendar, from, maxDate(from, now)) },
    );
    for (const r of rows) {
      const n = toNumber(r.account_number);
      const list = result.get(n) ?? [];
      list.push({ day: r.day, profit: toNumber(r.profit) });
      result.set(n, list);
    }
  }
  return result;
}
