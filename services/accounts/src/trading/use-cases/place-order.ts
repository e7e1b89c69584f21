import { AppError, CommittedRefusal, createdFields, currentActor, effectTransaction, recordAudit, type TenantScope } from '@propdesk/kit';
import { accountNotFound, appendEvent, lockAccount } from '../core-port';
import { insertFlag } from '../data/flags';
import { insertPosition, livePositionsOfAccount } from '../data/positions';
import { calendarOf } from '../domain/calendar';
import type { OrderInput } from '../domain/orders';
import { preOrderViolations, sessionEndAfter } from '../domain/rule-pack';
import { keepDeadlines } from '../data/rule-deadlines';
import { orderFacts } from './order-facts';
import { orderInMarket, priceOrder, type OrderRequest } from './order-request';
import { requireActive } from './account-access';
import { positionOpenedData } from './position-events';
import { equityFromPositions, markPosition, recordEquityPoint, type Markets, type MarkedPosition, type TradingContext } from './trading-context';

export type PlaceOrderRequest = OrderRequest;

/** PlaceOrder: checks the request, places the order at the freshest stored quote of the account's market, and lets it evaluate the account at once. */
export async function placeOrder(markets: Markets, req: PlaceOrderRequest): Promise<MarkedPosition> {
  const { scope, number, market, ctx, input } = await orderInMarket(markets, req, 'write');
  const marked = await placeValidatedOrder(ctx, scope, number, input);
  await market.afterAccountChange(number);
  return marked;
}

/**
 * Places a market, limit or stop order. A market order fills at once (buy at ask, sell at bid);
 * limit and stop orders rest as pending. Pre-order rules refuse with order_rejected, and the
 * order.rejected event still commits: the rejection transaction commits before the error is thrown.
 */
async function placeValidatedOrder(ctx: TradingContext, scope: TenantScope, accountNumber: number, input: OrderInput): Promise<MarkedPosition> {
  const { order, entry } = priceOrder(ctx, input);
  const now = ctx.now();

  // The effect transaction's answer is the placed position (with its mark); a rejection commits
  // its order.rejected event with the recorded refusal (CommittedRefusal), so a retry with the same
  // Idempotency-Key neither trades nor emits a second event.
  return effectTransaction(ctx.sequelize, async (tx): Promise<MarkedPosition> => {
    const account = await lockAccount(ctx.sequelize, tx, accountNumber, scope);
    if (!account) throw accountNotFound();
    await ctx.checkTime?.(tx);
    requireActive(account);
    const live = await livePositionsOfAccount(ctx.sequelize, accountNumber, tx);
    // Every pre-order rule (SPEC 9, 14, 15) in order: the first that refuses names itself.
    const [violation] = preOrderViolations(order, account, await orderFacts(ctx, account, live, order, entry, tx));
    if (violation) {
      await appendEvent(ctx.sequelize, tx, {
        ...scope,
        type: 'order.rejected',
        data: { account: accountNumber, rule: violation.rule, reason: violation.reason, symbol: order.symbol, side: order.side, volume: order.volume },
      });
      throw new CommittedRefusal(new AppError('order_rejected', violation.reason));
    }

    const filled = order.type === 'market';
    const position = await insertPosition(ctx.sequelize, tx, {
      accountNumber,
      organizationId: scope.organizationId,
      status: filled ? 'open' : 'pending',
      symbol: order.symbol,
      side: order.side,
      volume: order.volume,
      type: order.type,
      price: filled ? null : (order.price ?? null),
      openPrice: filled ? entry : null,
      stopLoss: order.stopLoss ?? null,
      takeProfit: order.takeProfit ?? null,
      openedAt: filled ? now : null,
      tradingDay: filled ? calendarOf(account.terms, ctx.rolloverHourUtc).dayOf(now) : null,
      createdAt: now,
    });

    const threshold = account.terms.flagLotsAbove;
    if (threshold !== null && order.volume > threshold) {
      const reason = `large_order: ${order.volume} lots of ${order.symbol} is above ${threshold} lots`;
      await insertFlag(ctx.sequelize, tx, {
        accountNumber,
        organizationId: scope.organizationId,
        rule: 'large_order',
        action: 'flag',
        reason,
        evidence: { position_id: position.id, symbol: order.symbol, volume: order.volume, threshold, time: now.toISOString() },
        dedupeKey: `large_order:${position.id}`,
        createdAt: now,
      });
      await appendEvent(ctx.sequelize, tx, {
        ...scope,
        type: 'account.flagged',
        data: { account: accountNumber, rule: 'large_order', reason, position_id: position.id },
      });
    }
    // SPEC 15 close_at_session_end: what the account now holds closes at the session's end (rule_deadlines).
    const sessionEnd = sessionEndAfter(account.terms, now);
    if (sessionEnd) await keepDeadlines(ctx.sequelize, tx, [{ accountNumber, rule: 'session_end', dueAt: sessionEnd, testClockId: account.testClockId }], 'earliest');
    if (filled) {
      await appendEvent(ctx.sequelize, tx, { ...scope, type: 'position.opened', data: positionOpenedData(accountNumber, position) });
      const after = equityFromPositions(ctx, account.balance, [...live, position]);
      await recordEquityPoint(ctx, tx, accountNumber, now, after, account.balance);
    }
    // An order placed by staff or an integration (an actor) is audited; an executor session's is
    // the trader's own trading, told by its events and trades only.
    if (currentActor()) {
      await recordAudit(tx, {
        scope,
        action: 'position.create',
        target: { type: 'position', id: position.id },
        changes: createdFields({
          account: accountNumber,
          status: position.status,
          symbol: position.symbol,
          side: position.side,
          volume: position.volume,
          type: position.type,
          price: position.price,
          open_price: position.openPrice,
          stop_loss: position.stopLoss,
          take_profit: position.takeProfit,
        }),
      });
    }
    return markPosition(ctx, position);
  });
}
