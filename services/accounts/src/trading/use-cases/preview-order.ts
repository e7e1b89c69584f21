import type { PreOrderRule } from '@propdesk/kit';
import { roundMoney } from '../domain/instruments';
import { preOrderViolations, worstCase, type WorstCase } from '../domain/rule-pack';
import { limitsOf } from '../domain/rules';
import { requireActive } from './account-access';
import { liveAccountView } from './live-account-view';
import { orderFacts } from './order-facts';
import { orderInMarket, priceOrder, type OrderRequest } from './order-request';
import type { Markets } from './trading-context';

/** The order preview (SPEC 15). */
export interface OrderPreview {
  allowed: boolean;
  rejections: Array<{ rule: PreOrderRule; message: string }>;
  marginRequired: number;
  freeMarginAfter: number;
  worstCase: WorstCase | null;
}

/**
 * POST /v1/accounts/{n}/orders/preview: what every pre-order rule says of the order now (the
 * same rules, facts and order as placing it, domain/rule-pack.ts) and, with a stop loss, the
 * account's headroom if it filled at its price and was stopped out. Reads only: no transaction,
 * no event, no position, nothing counted toward any limit (max_trades_per_day counts positions).
 * An order malformed for the market is the same 400 as placing it; an account that no longer
 * trades the same 409.
 */
export async function previewOrder(markets: Markets, req: OrderRequest): Promise<OrderPreview> {
  const { scope, number, ctx, input } = await orderInMarket(markets, req, 'read');
  const { order, entry } = priceOrder(ctx, input);
  const { account, live, snapshot } = await liveAccountView(ctx, scope, number);
  requireActive(account);
  const facts = await orderFacts(ctx, account, live, order, entry);
  const rejections = preOrderViolations(order, account, facts).map((v) => ({ rule: v.rule, message: v.reason }));
  const { required, equity, used } = facts.margin;
  return {
    allowed: rejections.length === 0,
    rejections,
    marginRequired: roundMoney(required),
    freeMarginAfter: roundMoney(equity - used - required),
    worstCase: facts.lossAtStop === null ? null : worstCase(account.terms, limitsOf(account.terms, snapshot), equity, facts.lossAtStop, snapshot.tradingDays),
  };
}
