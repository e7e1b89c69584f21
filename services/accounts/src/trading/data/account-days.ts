import { selectRows, toNumber, type Sequelize } from '@propdesk/kit';

/**
 * The start-of-day balance of each account for a trading day: stored once per account per day
 * (first writer wins, so replicas agree), computed as the current balance minus what deals
 * closed since the day started added.
 */
export async function startOfDayBalances(sequelize: Sequelize, numbers: number[], day: string, dayStart: Date): Promise<Map<number, number>> {
  if (numbers.length === 0) return new Map();
  const rows = await selectRows<{ account_number: string; start_of_day_balance: string }>(
    sequelize,
    `WITH computed AS (
       SELECT a.number,
              a.balance - COALESCE((SELECT sum(d.profit) FROM deals d WHERE d.account_number = a.number AND d.closed_at >= $dayStart::timestamptz), 0) AS sod
         FROM accounts a WHERE a.number = ANY($numbers::bigint[])
     ), inserted AS (
       INSERT INTO account_days (account_number, day, start_of_day_balance)
       SELECT number, $day::date, sod FROM computed
       ON CONFLICT (account_number, day) DO NOTHING
       RETURNING account_number, start_of_day_balance
     )
     SELECT account_number, start_of_day_balance FROM inserted
     UNION ALL
     SELECT account_number, start_of_day_balance FROM account_days WHERE day = $day::date AND account_number = ANY($numbers::bigint[])`,
    { numbers, day, dayStart: dayStart.toISOString() },
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), toNumber(r.start_of_day_balance)]));
}
