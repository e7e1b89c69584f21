import { QueryTypes, toNumber, type Sequelize } from '@propdesk/kit';

/**
 * The start-of-day balance of each account for a trading day: stored once per account per day
 * (first writer wins, so replicas agree), computed as the current balance minus what deals
 * closed since the day started added.
 */
export async function startOfDayBalances(sequelize: Sequelize, numbers: number[], day: string, dayStart: Date): Promise<Map<number, number>> {
  if (numbers.length === 0) return new Map();
  const rows = await sequelize.query<{ account_number: string; start_of_day_balance: string }>(
    `WITH computed AS (
       SELECT a.number,
              a.balance - COALESCE((SELECT sum(d.profit) FROM deals d WHERE d.account_number = a.number AND d.closed_at >= $3::timestamptz), 0) AS sod
         FROM accounts a WHERE a.number = ANY($1::bigint[])
     ), inserted AS (
       INSERT INTO account_days (account_number, day, start_of_day_balance)
       SELECT number, $2::date, sod FROM computed
       ON CONFLICT (account_number, day) DO NOTHING
       RETURNING account_number, start_of_day_balance
     )
     SELECT account_number, start_of_day_balance FROM inserted
     UNION ALL
     SELECT account_number, start_of_day_balance FROM account_days WHERE day = $2::date AND account_number = ANY($1::bigint[])`,
    { bind: [numbers, day, dayStart.toISOString()], type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), toNumber(r.start_of_day_balance)]));
}
