import { selectOne, type Sequelize, type Transaction } from '@propdesk/kit';
import { advanceRunningStats, initialRunningStats, type RunningStats } from '../domain/running-stats';
import { STATS_COLUMNS, toRunningStats, type StatsRow } from './deal-stats';
import { DEAL_COLUMNS, toDeal, type Deal, type DealRow, type NewDeal } from './deals';
import { POSITION_COLUMNS, toPosition, type Position, type PositionRow } from './positions';

/** `columns` of `table`, each renamed with `prefix` (one result row carries several tables' columns). */
function prefixed(table: string, columns: string, prefix: string): string {
  return columns
    .split(',')
    .map((c) => `${table}.${c.trim()} AS ${prefix}${c.trim()}`)
    .join(', ');
}

/** The columns of `row` named with `prefix`, without it. */
function unprefixed<T>(row: Record<string, unknown>, prefix: string): T {
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) picked[key.slice(prefix.length)] = value;
  return picked as T;
}

/**
 * Closes an open position into its deal inside the caller's transaction (the account row is
 * locked). One statement closes the position row (only if it is still open), inserts the deal
 * carrying the balance after it, folds the deal into the month's and the day's summaries
 * (data-modifying CTEs, each fed by the one before) and reads the running figures. They come back
 * advanced by the deal, for the caller to write (runningStatsStatement) once its closes are done:
 * a later close in the same transaction passes them in as `running` (the row is not written yet).
 * Null when the position was no longer open (another replica got there first): then nothing was
 * written.
 */
export async function closeIntoDeal(
  sequelize: Sequelize,
  tx: Transaction,
  d: NewDeal,
  initialBalance: number,
  running?: RunningStats,
): Promise<{ position: Position; deal: Deal; running: RunningStats } | null> {
  const before = d.balanceAfter - d.profit;
  const r = before !== 0 ? d.profit / before : 0;
  const row = await selectOne<Record<string, unknown>>(
    sequelize,
    `WITH closed AS (
       UPDATE positions SET status = 'closed', close_price = $closePrice, profit = $profit, closed_at = $closedAt,
           close_reason = $closeReason, updated_at = now()
        WHERE id = $positionId AND status = 'open' RETURNING ${POSITION_COLUMNS}
     ), deal AS (
       INSERT INTO deals (account_number, organization_id, position_id, symbol, side, volume, open_price, close_price, profit,
         opened_at, closed_at, close_reason, balance_after)
       SELECT $accountNumber::bigint, $organizationId::uuid, id, $symbol::text, $side::text, $volume::numeric, $openPrice::numeric,
              $closePrice::numeric, $profit::numeric, $openedAt::timestamptz, $closedAt::timestamptz, $closeReason::text, $balanceAfter::numeric
         FROM closed
       RETURNING ${DEAL_COLUMNS}
     ), month AS (
       INSERT INTO deal_stats (account_number, month, side, symbol, trades, wins, losses, gross_profit, gross_loss, lots, sum_return, sum_return_sq,
         best, worst, first_seq, last_seq)
       SELECT account_number, date_trunc('month', closed_at AT TIME ZONE 'UTC')::date, side, symbol, 1, $win::integer, $loss::integer,
              $gp::numeric, $gl::numeric, volume, $r::float8, $r2::float8, profit, profit, seq, seq
         FROM deal
       ON CONFLICT (account_number, month, side, symbol) DO UPDATE SET trades = deal_stats.trades + 1, wins = deal_stats.wins + EXCLUDED.wins,
         losses = deal_stats.losses + EXCLUDED.losses, gross_profit = deal_stats.gross_profit + EXCLUDED.gross_profit,
         gross_loss = deal_stats.gross_loss + EXCLUDED.gross_loss, lots = deal_stats.lots + EXCLUDED.lots,
         sum_return = deal_stats.sum_return + EXCLUDED.sum_return, sum_return_sq = deal_stats.sum_return_sq + EXCLUDED.sum_return_sq,
         best = GREATEST(deal_stats.best, EXCLUDED.best), worst = LEAST(deal_stats.worst, EXCLUDED.worst),
         first_seq = LEAST(deal_stats.first_seq, EXCLUDED.first_seq), last_seq = GREATEST(deal_stats.last_seq, EXCLUDED.last_seq)
     ), day AS (
       INSERT INTO daily_balances (account_number, day, deals, close_balance, last_seq)
       SELECT account_number, (closed_at AT TIME ZONE 'UTC')::date, 1, balance_after, seq FROM deal
       ON CONFLICT (account_number, day) DO UPDATE SET deals = daily_balances.deals + 1,
         close_balance = CASE WHEN EXCLUDED.last_seq > daily_balances.last_seq THEN EXCLUDED.close_balance ELSE daily_balances.close_balance END,
         last_seq = GREATEST(daily_balances.last_seq, EXCLUDED.last_seq)
     )
     SELECT ${prefixed('closed', POSITION_COLUMNS, 'p_')}, ${prefixed('deal', DEAL_COLUMNS, 'd_')}, s.current_sign IS NOT NULL AS has_stats,
            ${prefixed('s', STATS_COLUMNS, 's_')}
       FROM closed CROSS JOIN deal LEFT JOIN account_trading_stats s ON s.account_number = deal.account_number`,
    {
      // The deal's own fields keep their names ($positionId, $profit ...).
      ...d,
      win: d.profit > 0 ? 1 : 0,
      loss: d.profit < 0 ? 1 : 0,
      gp: d.profit > 0 ? d.profit : 0,
      gl: d.profit < 0 ? d.profit : 0,
      r,
      r2: r * r,
    },
    tx,
  );
  if (!row) return null;
  const deal = toDeal(unprefixed<DealRow>(row, 'd_'));
  const stats = running ?? (row.has_stats ? toRunningStats(unprefixed<StatsRow>(row, 's_')) : initialRunningStats(initialBalance));
  return { position: toPosition(unprefixed<PositionRow>(row, 'p_')), deal, running: advanceRunningStats(stats, deal.profit, deal.balanceAfter) };
}
