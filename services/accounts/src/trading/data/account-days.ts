import { execute, selectRows, toNumber, type Sequelize, type Transaction } from '@propdesk/kit';

/** What the daily and trailing_eod rules measure from, per account and trading day. */
export interface DayStart {
  /** The balance at the start of the day. */
  balance: number;
  /** The equity at the start of the day (the last mark before it while positions were open; else the balance). */
  equity: number;
  /** The highest start-of-day balance of the attempt so far: the highest end-of-day balance before today. */
  highestEodBalance: number;
}

/**
 * The start of a trading day of each account: stored once per account per day (first writer
 * wins, so replicas agree), computed as the current balance minus what deals of the current
 * attempt closed since the day started added; the equity from the last mark before the day while
 * a position was open over the boundary. Rows of earlier attempts are removed by a reset.
 */
export async function startOfDayBalances(sequelize: Sequelize, numbers: number[], day: string, dayStart: Date, tx?: Transaction): Promise<Map<number, DayStart>> {
  if (numbers.length === 0) return new Map();
  const rows = await selectRows<DayStartRow & { account_number: string }>(
    sequelize,
    `WITH computed AS (
       SELECT a.number,
              a.balance - COALESCE((SELECT sum(d.profit) FROM deals d
                                     WHERE d.account_number = a.number AND d.closed_at >= greatest(CAST($dayStart AS timestamptz), a.attempt_started_at)), 0) AS sod,
              CASE WHEN EXISTS (SELECT 1 FROM positions p WHERE p.account_number = a.number AND p.status = 'open' AND p.opened_at < CAST($dayStart AS timestamptz))
                   THEN (SELECT m.close FROM equity_minutes m WHERE m.account_number = a.number AND m.minute < CAST($dayStart AS timestamptz)
                          ORDER BY m.minute DESC LIMIT 1)
              END AS sod_equity
         FROM accounts a WHERE a.number = ANY($numbers)
     ), inserted AS (
       INSERT INTO account_days (account_number, day, start_of_day_balance, start_of_day_equity)
       SELECT number, CAST($day AS date), sod, coalesce(sod_equity, sod) FROM computed
       ON CONFLICT (account_number, day) DO NOTHING
       RETURNING account_number, start_of_day_balance, start_of_day_equity
     ), today AS (
       SELECT account_number, start_of_day_balance, start_of_day_equity FROM inserted
       UNION ALL
       SELECT account_number, start_of_day_balance, start_of_day_equity FROM account_days WHERE day = CAST($day AS date) AND account_number = ANY($numbers)
     )
     SELECT t.account_number, t.start_of_day_balance AS balance, t.start_of_day_equity AS equity,
            (SELECT max(d.start_of_day_balance) FROM account_days d WHERE d.account_number = t.account_number AND d.day <= CAST($day AS date)) AS highest
       FROM today t`,
    { numbers, day, dayStart: dayStart.toISOString() },
    tx,
  );
  return new Map(rows.map((r) => [toNumber(r.account_number), toDayStart(r)]));
}

type DayStartRow = { balance: string; equity: string | null; highest: string | null };

function toDayStart(r: DayStartRow): DayStart {
  const balance = toNumber(r.balance);
  return {
    balance,
    equity: r.equity === null ? balance : toNumber(r.equity),
    highestEodBalance: r.highest === null ? balance : Math.max(balance, toNumber(r.highest)),
  };
}

/**
 * The start of `day` as stored while the account traded that day, written by no one: for an
 * account no longer active that stopped that day (its limits as they stood then). Undefined
 * without a row.
 */
export async function storedDayStart(sequelize: Sequelize, accountNumber: number, day: string): Promise<DayStart | undefined> {
  const [row] = await selectRows<DayStartRow>(
    sequelize,
    `SELECT t.start_of_day_balance AS balance, t.start_of_day_equity AS equity,
            (SELECT max(d.start_of_day_balance) FROM account_days d WHERE d.account_number = t.account_number AND d.day <= t.day) AS highest
       FROM account_days t WHERE t.account_number = $accountNumber AND t.day = CAST($day AS date)`,
    { accountNumber, day },
  );
  return row && toDayStart(row);
}

/** A reset: the day starts afresh from the initial balance (rows of the old attempt removed). */
export async function forgetAccountDays(sequelize: Sequelize, tx: Transaction, accountNumber: number): Promise<void> {
  await execute(sequelize, 'DELETE FROM account_days WHERE account_number = $accountNumber', { accountNumber }, tx);
}
