import { AppError, type ScopeFields, type TenantScope } from '@propdesk/kit';
import { parseAccountNumber, parseScope } from '../core-port';
import { requireInstrument } from '../domain/instruments';
import { validateOrderAgainstMarket, validateOrderPrices, validateVolume, type OrderInput, type OrderType } from '../domain/orders';
import type { Side } from '../domain/pnl';
import { requireQuote, type Market, type Markets, type TradingContext } from './trading-context';

/** An order as PlaceOrder and PreviewOrder take it. */
export interface OrderRequest extends ScopeFields {
  number: string;
  symbol: string;
  /** Undefined when the caller sent something that is not a side or an order type. */
  side: Side | undefined;
  type: OrderType | undefined;
  volume: number;
  price?: number;
  stopLoss?: number;
  takeProfit?: number;
}

/**
 * An order request in its account's market (placing or previewing one): side and type named,
 * then the market (`purpose` as Markets.of), with the symbol's freshest stored quote.
 */
export async function orderInMarket(
  markets: Markets,
  req: OrderRequest,
  purpose: 'read' | 'write',
): Promise<{ scope: TenantScope; number: number; market: Market; ctx: TradingContext; input: OrderInput }> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const { side, type } = req;
  if (!side) throw new AppError('invalid_request', 'side must be buy or sell', 'side');
  if (!type) throw new AppError('invalid_request', 'type must be market, limit or stop', 'type');
  const market = await markets.of(scope, number, purpose);
  const ctx = await market.context();
  if (typeof req.symbol === 'string' && req.symbol.length > 0) await market.refreshQuote(req.symbol.toUpperCase());
  const input: OrderInput = {
    symbol: req.symbol,
    side,
    type,
    volume: req.volume,
    price: type === 'market' ? undefined : req.price,
    stopLoss: req.stopLoss,
    takeProfit: req.takeProfit,
  };
  return { scope, number, market, ctx, input };
}

/**
 * The order checked against its instrument and the market now: known symbol, volume, prices in the
 * instrument's digits, limit and stop prices and protective levels on the right side. Answers the
 * order (its symbol canonical) and its entry price (ask or bid now for a market order, its price
 * for a pending one).
 */
export function priceOrder(ctx: TradingContext, input: OrderInput): { order: OrderInput; entry: number } {
  const instrument = requireInstrument(input.symbol);
  const order: OrderInput = { ...input, symbol: instrument.symbol };
  validateVolume(order.volume);
  validateOrderPrices(order, instrument);
  return { order, entry: validateOrderAgainstMarket(order, requireQuote(ctx, order.symbol)) };
}
