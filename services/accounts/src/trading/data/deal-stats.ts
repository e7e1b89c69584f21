import { execute, selectOne, selectRows, toNumber, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';
import { initialRunningStats, type RunningStats } from '../domain/running-stats';
import { maxDrawdown, streaks, type DealAggregate } from './statistics';

export interface StatsRow {
  current_sign: number;
  current_length: number;
  current_total: string;
  max_wins: number;
  max_losses: number;
  best_run: string;
  worst_run: string;
  peak_balance: string;
  max_drawdown: string;
  max_drawdown_pct: number;
}

/** Named, not `*`: a statement prepared on a connection keeps its result columns even when a later migration adds one. */
export const STATS_COLUMNS = 'current_sign, current_length, current_total, max_wins, max_losses, best_run, worst_run, peak_balance, max_drawdown, max_drawdown_pct';

export function toRunningStats(r: StatsRow): RunningStats {
  return {
    currentSign: (Math.sign(r.current_sign) as -1 | 0 | 1) || 0,
    currentLength: r.current_length,
    currentTotal: toNumber(r.current_total),
    maxWins: r.max_wins,
    maxLosses: r.max_losses,
    bestRun: toNumber(r.best_run),
    worstRun: toNumber(r.worst_run),
    peakBalance: toNumber(r.peak_balance),
    maxDrawdown: toNumber(r.max_drawdown),
    maxDrawdownPct: Number(r.max_drawdown_pct),
  };
}

export async function readRunningStats(sequelize: Sequelize, accountNumber: number, initialBalance: number, tx?: Transaction): Promise<RunningStats> {
  const row = await selectOne<StatsRow>(sequelize, `SELECT ${STATS_COLUMNS} FROM account_trading_stats WHERE account_number = $accountNumber`, { accountNumber }, tx);
  return row ? toRunningStats(row) : initialRunningStats(initialBalance);
}

/**
 * Drawdown columns only ever grow (GREATEST): the equity marks of the engine's flush and the
 * deals of a transaction may both write them, and neither may undo the other.
 */
async function writeRunningStats(sequelize: Sequelize, accountNumber: number, s: RunningStats, tx?: Transaction): Promise<void> {
  const { sql, bind } = runningStatsStatement(accountNumber, s);
  await execute(sequelize, sql, bind, tx);
}

/** writeRunningStats' statement, to run with others (executeTogether). */
export function runningStatsStatement(accountNumber: number, s: RunningStats): Statement {
  return {
    sql: `INSERT INTO account_trading_stats (account_number, current_sign, current_length, current_total, max_wins, max_losses, best_run, worst_run,
       peak_balance, max_drawdown, max_drawdown_pct)
     VALUES ($accountNumber, $currentSign, $currentLength, $currentTotal, $maxWins, $maxLosses, $bestRun, $worstRun, $peakBalance, $maxDrawdown, $maxDrawdownPct)
     ON CONFLICT (account_number) DO UPDATE SET current_sign = EXCLUDED.current_sign, current_length = EXCLUDED.current_length,
       current_total = EXCLUDED.current_total, max_wins = EXCLUDED.max_wins, max_losses = EXCLUDED.max_losses, best_run = EXCLUDED.best_run,
       worst_run = EXCLUDED.worst_run, peak_balance = EXCLUDED.peak_balance,
       max_drawdown = GREATEST(account_trading_stats.max_drawdown, EXCLUDED.max_drawdown),
       max_drawdown_pct = GREATEST(account_trading_stats.max_drawdown_pct, EXCLUDED.max_drawdown_pct)`,
    bind: { accountNumber, ...s },
  };
}

/** Equity drawdowns seen by the engine's marks (running peak minus the mark), merged in one statement. */
export async function recordEquityDrawdowns(
  sequelize: Sequelize,
  items: Array<{ accountNumber: number; drawdown: number; pct: number; initialBalance: number }>,
): Promise<void> {
  if (items.length === 0) return;
  const sorted = [...items].sort((a, b) => a.accountNumber - b.accountNumber);
  await execute(
    sequelize,
    `INSERT INTO account_trading_stats (account_number, current_sign, current_length, current_total, max_wins, max_losses, best_run, worst_run,
       peak_balance, max_drawdown, max_drawdown_pct)
     SELECT n, 0, 0, 0, 0, 0, 0, 0, b, dd, pct FROM unnest($numbers::bigint[], $drawdowns::numeric[], $pcts::float8[], $balances::numeric[]) AS v(n, dd, pct, b)
     ON CONFLICT (account_number) DO UPDATE SET max_drawdown = GREATEST(account_trading_stats.max_drawdown, EXCLUDED.max_drawdown),
       max_drawdown_pct = GREATEST(account_trading_stats.max_drawdown_pct, EXCLUDED.max_drawdown_pct)`,
    {
      numbers: sorted.map((i) => i.accountNumber),
      drawdowns: sorted.map((i) => i.drawdown),
      pcts: sorted.map((i) => i.pct),
      balances: sorted.map((i) => i.initialBalance),
    },
  );
}

interface BreakdownRow {
  level: number;
  key: string | null;
  trades: string;
  wins: string;
  losses: string;
  gross_profit: string;
  gross_loss: string;
  lots: string;
  sum_return: number;
  sum_return_sq: number;
  best: string | null;
  worst: string | null;
  start_balance: string | null;
  end_balance: string | null;
}

function toAggregate(r: BreakdownRow): DealAggregate {
  const trades = toNumber(r.trades);
  const wins = toNumber(r.wins);
  const losses = toNumber(r.losses);
  const grossProfit = toNumber(r.gross_profit);
  const grossLoss = toNumber(r.gross_loss);
  const mean = trades > 0 ? Number(r.sum_return) / trades : null;
  const variance = trades > 1 && mean !== null ? (Number(r.sum_return_sq) - trades * mean * mean) / (trades - 1) : null;
  return {
    key: r.key ?? '',
    trades,
    wins,
    losses,
    grossProfit,
    grossLoss,
    net: grossProfit + grossLoss,
    lots: toNumber(r.lots),
    averageWin: wins > 0 ? grossProfit / wins : null,
    averageLoss: losses > 0 ? grossLoss / losses : null,
    meanReturn: mean,
    returnStdDev: variance !== null ? Math.sqrt(Math.max(0, variance)) : null,
    best: r.best === null ? null : toNumber(r.best),
    worst: r.worst === null ? null : toNumber(r.worst),
    startBalance: r.start_balance === null ? null : toNumber(r.start_balance),
    endBalance: r.end_balance === null ? null : toNumber(r.end_balance),
  };
}

export interface DealBreakdown {
  totals: DealAggregate | undefined;
  bySide: DealAggregate[];
  bySymbol: DealAggregate[];
  /** Per calendar month (UTC), with the balance before its first deal and after its last. */
  byMonth: DealAggregate[];
}

/** Totals, long/short, per instrument and per month from the summary rows (one per month, side and symbol). */
export async function dealBreakdown(sequelize: Sequelize, accountNumber: number): Promise<DealBreakdown> {
  const rows = await selectRows<BreakdownRow>(
    sequelize,
    `WITH g AS (
       SELECT GROUPING(side, symbol, month) AS level, COALESCE(side, symbol, to_char(month, 'YYYY-MM'), '') AS key,
              sum(trades) AS trades, sum(wins) AS wins, sum(losses) AS losses, sum(gross_profit) AS gross_profit, sum(gross_loss) AS gross_loss,
              sum(lots) AS lots, sum(sum_return) AS sum_return, sum(sum_return_sq) AS sum_return_sq, max(best) AS best, min(worst) AS worst,
              min(first_seq) AS first_seq, max(last_seq) AS last_seq
         FROM deal_stats WHERE account_number = $accountNumber
        GROUP BY GROUPING SETS ((), (side), (symbol), (month))
     )
     SELECT g.*, f.balance_after - f.profit AS start_balance, l.balance_after AS end_balance
       FROM g LEFT JOIN deals f ON f.seq = g.first_seq LEFT JOIN deals l ON l.seq = g.last_seq
      ORDER BY 1, 2`,
    { accountNumber },
  );
  // GROUPING(side, symbol, month) bit mask: 7 = the grand total, 3 = by side, 5 = by symbol, 6 = by month.
  const at = (level: number) => rows.filter((r) => Number(r.level) === level && toNumber(r.trades) > 0).map(toAggregate);
  const [totals] = at(7);
  return { totals, bySide: at(3), bySymbol: at(5), byMonth: at(6) };
}

/**
 * Inserts the month's summaries (deal_stats) of the deals `from` names: a table or CTE with the
 * deals' columns, with its own WHERE if it needs one. A deal's return is its profit over the
 * balance before it. The rebuild below writes them afresh; closing.ts folds a batch into them.
 */
export function insertDealStats(from: string): string {
  return `INSERT INTO deal_stats (account_number, month, side, symbol, trades, wins, losses, gross_profit, gross_loss, lots, sum_return, sum_return_sq,
         best, worst, first_seq, last_seq)
       SELECT account_number, date_trunc('month', closed_at AT TIME ZONE 'UTC')::date, side, symbol, count(*),
              count(*) FILTER (WHERE profit > 0), count(*) FILTER (WHERE profit < 0),
              COALESCE(sum(profit) FILTER (WHERE profit > 0), 0), COALESCE(sum(profit) FILTER (WHERE profit < 0), 0), sum(volume),
              COALESCE(sum(profit::float8 / NULLIF(balance_after::float8 - profit::float8, 0)), 0),
              COALESCE(sum((profit::float8 / NULLIF(balance_after::float8 - profit::float8, 0)) ^ 2), 0),
              max(profit), min(profit), min(seq), max(seq)
         FROM ${from} GROUP BY 1, 2, 3, 4`;
}

/**
 * Recomputes an account's summaries from its deals (a repair tool, and how the benchmark seeds
 * 100,000 deals written straight into the table).
 */
export async function rebuildDealStats(sequelize: Sequelize, accountNumber: number, initialBalance: number): Promise<void> {
  await sequelize.transaction(async (tx) => {
    await execute(sequelize, 'DELETE FROM deal_stats WHERE account_number = $accountNumber', { accountNumber }, tx);
    // Trades only: a balance adjustment (SPEC 14) is in the balance history, not the trading statistics.
    await execute(sequelize, insertDealStats("deals WHERE account_number = $accountNumber AND type = 'trade'"), { accountNumber }, tx);
    await execute(sequelize, 'DELETE FROM daily_balances WHERE account_number = $accountNumber', { accountNumber }, tx);
    await execute(
      sequelize,
      `INSERT INTO daily_balances (account_number, day, deals, close_balance, last_seq)
       SELECT l.account_number, l.day, l.deals, d.balance_after, l.last_seq
         FROM (SELECT account_number, (closed_at AT TIME ZONE 'UTC')::date AS day, count(*) AS deals, max(seq) AS last_seq
                 FROM deals WHERE account_number = $accountNumber GROUP BY 1, 2) l
         JOIN deals d ON d.seq = l.last_seq`,
      { accountNumber }, tx,
    );
  });
  const [runs, drawdown, last] = await Promise.all([
    streaks(sequelize, accountNumber),
    maxDrawdown(sequelize, accountNumber),
    selectRows<{ peak: string | null }>(sequelize, 'SELECT max(balance_after) AS peak FROM deals WHERE account_number = $accountNumber', { accountNumber }),
  ]);
  const sign = runs.current.kind === 'win' ? 1 : runs.current.kind === 'loss' ? -1 : 0;
  await execute(sequelize, 'DELETE FROM account_trading_stats WHERE account_number = $accountNumber', { accountNumber });
  await writeRunningStats(sequelize, accountNumber, {
    currentSign: sign,
    currentLength: runs.current.length,
    currentTotal: 0,
    maxWins: runs.maxConsecutiveWins,
    maxLosses: runs.maxConsecutiveLosses,
    bestRun: runs.bestRunProfit,
    worstRun: runs.worstRunLoss,
    peakBalance: Math.max(initialBalance, toNumber(last[0]?.peak)),
    maxDrawdown: drawdown.amount,
    maxDrawdownPct: drawdown.pct,
  });
}

/** A reset: the report's summaries start again from nothing for the new attempt (the deals stay). */
export async function forgetDealStats(sequelize: Sequelize, tx: Transaction, accountNumber: number): Promise<void> {
  for (const table of ['deal_stats', 'daily_balances', 'account_trading_stats']) {
    await execute(sequelize, `DELETE FROM ${table} WHERE account_number = $accountNumber`, { accountNumber }, tx);
  }
}
