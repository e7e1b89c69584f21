import { selectRows, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';
import { initialRunningStats, type RunningStats } from '../domain/running-stats';
import { insertDealStats, STATS_COLUMNS, toRunningStats, type StatsRow } from './deal-stats';
import { DEAL_COLUMNS, type NewDeal } from './deals';
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
 * The open and pending positions of one account and its running figures, in one round trip: what
 * a verdict reads under the account lock before it closes the positions (closeStatements).
 */
export async function livePositionsAndRunningStats(
  sequelize: Sequelize,
  accountNumber: number,
  initialBalance: number,
  tx: Transaction,
): Promise<{ live: Position[]; running: RunningStats }> {
  const rows = await selectRows<Record<string, unknown>>(
    sequelize,
    `SELECT ${prefixed('p', POSITION_COLUMNS, 'p_')}, s.current_sign IS NOT NULL AS has_stats, ${prefixed('s', STATS_COLUMNS, 's_')}
       FROM (SELECT $accountNumber::bigint AS number) a
       LEFT JOIN account_trading_stats s ON s.account_number = a.number
       LEFT JOIN positions p ON p.account_number = a.number AND p.status IN ('open', 'pending')
      ORDER BY p.seq`,
    { accountNumber },
    tx,
  );
  const live = rows.filter((row) => row.p_id !== null).map((row) => toPosition(unprefixed<PositionRow>(row, 'p_')));
  const running = rows[0].has_stats ? toRunningStats(unprefixed<StatsRow>(rows[0], 's_')) : initialRunningStats(initialBalance);
  return { live, running };
}

/**
 * The statements that close open positions into their deals, for executeTogether inside the
 * caller's transaction (the account row is locked, and `deals`, one account's, in the order they
 * close, were computed from its positions read under that lock): the position rows close, the
 * deals are inserted in that order (their seq follows it) carrying the balance after each, and
 * are folded into the month's and the day's summaries (one upsert per summary row). The running
 * figures are the caller's to advance and write (runningStatsStatement). A position that was not
 * open any more would get a deal without a position (NULL position_id), which deals refuses: the
 * whole statement fails, and a balance never moves without its deal. The statements are named
 * `closed` and `dealt`: one account's closes go into one executeTogether.
 */
export function closeStatements(deals: NewDeal[]): Statement[] {
  const { accountNumber, organizationId } = deals[0];
  const ids = deals.map((d) => d.positionId);
  return [
    {
      name: 'closed',
      sql: `UPDATE positions p SET status = 'closed', close_price = c.close_price, profit = c.profit, closed_at = c.closed_at,
              close_reason = c.close_reason, updated_at = now()
              FROM unnest($ids::uuid[], $closePrices::numeric[], $profits::numeric[], $closedAts::timestamptz[], $closeReasons::text[])
                AS c(id, close_price, profit, closed_at, close_reason)
             WHERE p.id = c.id AND p.status = 'open'
         RETURNING p.id`,
      bind: {
        ids,
        closePrices: deals.map((d) => d.closePrice),
        profits: deals.map((d) => d.profit),
        closedAts: deals.map((d) => d.closedAt),
        closeReasons: deals.map((d) => d.closeReason),
      },
    },
    {
      name: 'dealt',
      sql: `INSERT INTO deals (account_number, organization_id, position_id, symbol, side, volume, open_price, close_price, profit,
              opened_at, closed_at, close_reason, balance_after)
            SELECT $accountNumber::bigint, $organizationId::uuid, closed.id, d.symbol, d.side, d.volume, d.open_price, d.close_price, d.profit,
                   d.opened_at, d.closed_at, d.close_reason, d.balance_after
              FROM unnest($ids::uuid[], $symbols::text[], $sides::text[], $volumes::numeric[], $openPrices::numeric[], $closePrices::numeric[],
                          $profits::numeric[], $openedAts::timestamptz[], $closedAts::timestamptz[], $closeReasons::text[], $balancesAfter::numeric[])
                   WITH ORDINALITY AS d(position_id, symbol, side, volume, open_price, close_price, profit, opened_at, closed_at, close_reason, balance_after, ord)
              LEFT JOIN closed ON closed.id = d.position_id
             ORDER BY d.ord
         RETURNING ${DEAL_COLUMNS}`,
      bind: {
        accountNumber,
        organizationId,
        ids,
        symbols: deals.map((d) => d.symbol),
        sides: deals.map((d) => d.side),
        volumes: deals.map((d) => d.volume),
        openPrices: deals.map((d) => d.openPrice),
        closePrices: deals.map((d) => d.closePrice),
        profits: deals.map((d) => d.profit),
        openedAts: deals.map((d) => d.openedAt),
        closedAts: deals.map((d) => d.closedAt),
        closeReasons: deals.map((d) => d.closeReason),
        balancesAfter: deals.map((d) => d.balanceAfter),
      },
    },
    {
      sql: `${insertDealStats('dealt')}
            ON CONFLICT (account_number, month, side, symbol) DO UPDATE SET trades = deal_stats.trades + EXCLUDED.trades,
              wins = deal_stats.wins + EXCLUDED.wins, losses = deal_stats.losses + EXCLUDED.losses,
              gross_profit = deal_stats.gross_profit + EXCLUDED.gross_profit, gross_loss = deal_stats.gross_loss + EXCLUDED.gross_loss,
              lots = deal_stats.lots + EXCLUDED.lots, sum_return = deal_stats.sum_return + EXCLUDED.sum_return,
              sum_return_sq = deal_stats.sum_return_sq + EXCLUDED.sum_return_sq,
              best = GREATEST(deal_stats.best, EXCLUDED.best), worst = LEAST(deal_stats.worst, EXCLUDED.worst),
              first_seq = LEAST(deal_stats.first_seq, EXCLUDED.first_seq), last_seq = GREATEST(deal_stats.last_seq, EXCLUDED.last_seq)`,
      bind: {},
    },
    {
      sql: `INSERT INTO daily_balances (account_number, day, deals, close_balance, last_seq)
            SELECT account_number, (closed_at AT TIME ZONE 'UTC')::date, count(*), (array_agg(balance_after ORDER BY seq DESC))[1], max(seq)
              FROM dealt GROUP BY 1, 2
            ON CONFLICT (account_number, day) DO UPDATE SET deals = daily_balances.deals + EXCLUDED.deals,
              close_balance = CASE WHEN EXCLUDED.last_seq > daily_balances.last_seq THEN EXCLUDED.close_balance ELSE daily_balances.close_balance END,
              last_seq = GREATEST(daily_balances.last_seq, EXCLUDED.last_seq)`,
      bind: {},
    },
  ];
}
