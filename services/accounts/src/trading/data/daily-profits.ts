import { selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';

/**
 * The closed profit of each trading day of the account's current attempt (the day a deal closed,
 * the day rolling over at `rolloverHourUtc`), oldest first: what the consistency rule weighs.
 * Trades only: a balance adjustment (SPEC 14) is no trading day's profit.
 */
export async function dailyProfits(
  db: Sequelize,
  accountNumber: number,
  rolloverHourUtc: number,
  tx?: Transaction,
  since?: Date,
): Promise<Array<{ day: string; profit: number }>> {
  const rows = await selectRows<{ day: string; profit: string }>(
    db,
    `SELECT to_char((d.closed_at AT TIME ZONE 'UTC') - make_interval(hours => $rollover), 'YYYY-MM-DD') AS day, sum(d.profit) AS profit
       FROM deals d JOIN accounts a ON a.number = d.account_number AND a.attempt = d.attempt
      WHERE d.account_number = $accountNumber AND d.type = 'trade' AND d.closed_at >= greatest(a.attempt_started_at, CAST($since AS timestamptz))
      GROUP BY 1 ORDER BY 1`,
    { accountNumber, rollover: rolloverHourUtc, since: since ?? null },
    tx,
  );
  return rows.map((r) => ({ day: r.day, profit: toNumber(r.profit) }));
}

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

/** dailyProfits of many accounts in one statement (the engine's reloads of accounts with a consistency rule). */
export async function dailyProfitsOf(db: Sequelize, numbers: number[], rolloverHourUtc: number): Promise<Map<number, Array<{ day: string; profit: number }>>> {
  const result = new Map<number, Array<{ day: string; profit: number }>>();
  if (numbers.length === 0) return result;
  const rows = await selectRows<{ account_number: string; day: string; profit: string }>(
    db,
    `SELECT d.account_number, to_char((d.closed_at AT TIME ZONE 'UTC') - make_interval(hours => $rollover), 'YYYY-MM-DD') AS day, sum(d.profit) AS profit
       FROM deals d JOIN accounts a ON a.number = d.account_number AND a.attempt = d.attempt
      WHERE d.account_number = ANY($numbers::bigint[]) AND d.type = 'trade' AND d.closed_at >= a.attempt_started_at
      GROUP BY 1, 2 ORDER BY 1, 2`,
    { numbers, rollover: rolloverHourUtc },
  );
  for (const r of rows) {
    const n = toNumber(r.account_number);
    const list = result.get(n) ?? [];
    list.push({ day: r.day, profit: toNumber(r.profit) });
    result.set(n, list);
  }
  return result;
}
