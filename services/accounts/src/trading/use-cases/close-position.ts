import { AppError, currentActor, effectTransaction, executeTogether, isUuid, recordAudit, type ScopeFields, type Statement, type TenantScope, type Transaction } from '@propdesk/kit';
import {
  accountMoneyWithEvents,
  accountNotFound,
  eventsStatements,
  EVENTS_NOTIFIED,
  lockAccount,
  parseAccountNumber,
  parseScope,
  scopeOfAccount,
  type Account,
  type AccountMoney,
  type NewEvent,
} from '../core-port';
import { closeStatements } from '../data/closing';
import { readRunningStats, runningStatsStatement } from '../data/deal-stats';
import type { NewDeal } from '../data/deals';
import { cancelPending, findPosition, livePositionsOfAccount, type Position } from '../data/positions';
import { roundMoney } from '../domain/instruments';
import type { ExitReason } from '../domain/orders';
import { exitPrice, profitAt } from '../domain/pnl';
import { advanceRunningStats, type RunningStats } from '../domain/running-stats';
import { requireActive } from './account-access';
import { positionClosedData } from './position-events';
import { equityFromPositions, equityPointStatement, markPosition, requireQuote, type Markets, type MarkedPosition, type TradingContext } from './trading-context';

/** ClosePosition: closes an open position at the current price of the account's market (or cancels a resting order), then lets it re-evaluate the account. */
export async function closePosition(markets: Markets, req: ScopeFields & { number: string; positionId: string }): Promise<MarkedPosition> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const market = await markets.of(scope, number, 'write');
  const ctx = await market.context();
  // A malformed id can name no position: not_found, as for a missing one (the REST path says the same).
  if (!isUuid(req.positionId)) throw new AppError('not_found', 'position not found');
  const positionId = req.positionId.toLowerCase();
  // The answer is made inside the effect transaction: a retry with the same Idempotency-Key gets
  // this close again, not a conflict "already closed".
  const marked = await effectTransaction(ctx.sequelize, async (tx) => {
    const position = await closeInTx(ctx, tx, { scope, accountNumber: number, positionId, reason: 'manual' });
    if (!position) throw new AppError('not_found', 'position not found');
    // As for orders: audited when an actor (staff, an integration) closes; an executor session's close is the trader's own.
    if (currentActor()) {
      const cancelled = position.status === 'cancelled';
      await recordAudit(tx, {
        scope,
        action: cancelled ? 'position.cancel' : 'position.close',
        target: { type: 'position', id: position.id },
        changes: cancelled
          ? { status: ['pending', 'cancelled'] }
          : { status: ['open', position.status], close_price: [null, position.closePrice], profit: [null, position.profit] },
      });
    }
    return markPosition(ctx, position);
  });
  await market.afterAccountChange(number);
  return marked;
}

/**
 * A stop loss or take profit the engine saw hit: closes the position at that level. Null when it
 * was no longer open or its account no longer active (another replica got there first).
 */
export function exitPosition(ctx: TradingContext, exit: { accountNumber: number; positionId: string; reason: ExitReason; price: number }): Promise<Position | null> {
  return closeUnderLock(ctx, exit);
}

interface CloseRequest {
  accountNumber: number;
  positionId: string;
  /** Set for API calls: another organization's or the other mode's account is not_found. */
  scope?: TenantScope;
  reason: 'manual' | ExitReason;
  /** The stop-loss / take-profit level; a manual close uses the current bid (buy) or ask (sell). */
  price?: number;
}

/**
 * Closes an open position (or cancels a resting order) under the account row lock: the deal
 * moves the balance. For triggered exits a position that is no longer open is left alone and
 * null returned; an API close of a finished position is a conflict.
 */
function closeUnderLock(ctx: TradingContext, req: CloseRequest): Promise<Position | null> {
  return ctx.sequelize.transaction((tx) => closeInTx(ctx, tx, req));
}

async function closeInTx(ctx: TradingContext, tx: Transaction, req: CloseRequest): Promise<Position | null> {
  const now = ctx.now();
  {
    const account = await lockAccount(ctx.sequelize, tx, req.accountNumber, req.scope);
    if (!account) {
      if (req.scope) throw accountNotFound();
      return null;
    }
    const manual = req.reason === 'manual';
    if (manual) await ctx.checkTime?.(tx);
    const position = await findPosition(ctx.sequelize, req.accountNumber, req.positionId, tx);
    if (!position) {
      if (manual) throw new AppError('not_found', 'position not found');
      return null;
    }
    if (manual) requireActive(account);
    else if (account.status !== 'active') return null;

    if (position.status === 'pending' && manual) {
      const [cancelled] = await cancelPending(ctx.sequelize, tx, req.accountNumber, 'manual', now, position.id);
      return cancelled ?? null;
    }
    if (position.status !== 'open') {
      if (manual) throw new AppError('conflict', `position ${position.id} is already ${position.status}`);
      return null;
    }
    const price = req.price ?? exitPrice(position.side, requireQuote(ctx, position.symbol));
    const batch = closeBatch();
    const result = await closePositionInTx(ctx, tx, account, position, price, req.reason, now, batch);
    if (!result) return null;
    const remaining = (await livePositionsOfAccount(ctx.sequelize, req.accountNumber, tx)).filter((p) => p.id !== position.id);
    const equity = equityFromPositions(ctx, result.balance, remaining);
    await executeTogether(
      ctx.sequelize,
      [
        equityPointStatement(req.accountNumber, now, equity, result.balance),
        ...closeBatchStatements(req.accountNumber, batch, { balance: result.balance, equity, peakEquity: equity }),
      ],
      tx,
      EVENTS_NOTIFIED,
    );
    return result.position;
  }
}

/**
 * What the closes of one transaction leave to write: their deals, their position.closed events
 * and the account's running figures as advanced deal by deal. The caller writes them with its own
 * writes, in one statement (closeBatchStatements with executeTogether).
 */
export interface CloseBatch {
  deals: NewDeal[];
  events: NewEvent[];
  /** The account's running figures: read under the lock before the first close (or given by the caller, read with its positions). */
  running?: RunningStats;
}

export function closeBatch(running?: RunningStats): CloseBatch {
  return { deals: [], events: [], running };
}

/**
 * The batch's writes, to run with the caller's (executeTogether, closing with EVENTS_NOTIFIED when
 * there are events): the deals, the running figures and the events, numbered in their accounts'
 * sequences. With `money`, the account's money and status too, in the UPDATE that numbers its
 * events (a batch may change the account's row only once: accountMoneyWithEvents).
 */
export function closeBatchStatements(accountNumber: number, batch: CloseBatch, money?: AccountMoney): Statement[] {
  const closes = batch.deals.length > 0 ? [...closeStatements(batch.deals), runningStatsStatement(accountNumber, batch.running as RunningStats)] : [];
  if (money) return [...accountMoneyWithEvents(accountNumber, money, batch.events), ...closes];
  return [...closes, ...(batch.events.length > 0 ? eventsStatements(batch.events) : [])];
}

/**
 * Closes one open position at `price` inside the caller's transaction (the account row is
 * locked, the position read under it): its deal, carrying the balance after it, its
 * position.closed and the running figures go into `batch` for the caller to write
 * (closeBatchStatements), and the position comes back as it will be. Null for a position that
 * never opened.
 */
export async function closePositionInTx(
  ctx: TradingContext,
  tx: Transaction,
  account: Pick<Account, 'number' | 'organizationId' | 'livemode' | 'initialBalance' | 'balance'>,
  position: Position,
  price: number,
  reason: string,
  closedAt: Date,
  batch: CloseBatch,
): Promise<{ position: Position; balance: number } | null> {
  if (position.openPrice === null || position.openedAt === null) return null;
  const profit = profitAt({ symbol: position.symbol, side: position.side, volume: position.volume, openPrice: position.openPrice }, price, ctx.quote);
  const balance = roundMoney(account.balance + profit);
  batch.running ??= await readRunningStats(ctx.sequelize, account.number, account.initialBalance, tx);
  batch.running = advanceRunningStats(batch.running, profit, balance);
  batch.deals.push({
    accountNumber: account.number,
    organizationId: account.organizationId,
    positionId: position.id,
    symbol: position.symbol,
    side: position.side,
    volume: position.volume,
    openPrice: position.openPrice,
    closePrice: price,
    profit,
    openedAt: position.openedAt,
    closedAt,
    closeReason: reason,
    balanceAfter: balance,
  });
  batch.events.push({
    ...scopeOfAccount(account),
    type: 'position.closed',
    data: positionClosedData(account.number, position, { price, profit, reason }),
  });
  return { position: { ...position, status: 'closed', closePrice: price, profit, closedAt, closeReason: reason }, balance };
}
