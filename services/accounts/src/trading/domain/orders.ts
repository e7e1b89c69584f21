import { AppError, LOT_STEP, requireExactNumber, type PreOrderRule } from '@propdesk/kit';
import type { Instrument, Quote } from './instruments';
import { entryPrice, exitPrice, type Side } from './pnl';
import type { Terms } from '../core-port';

export type OrderType = 'market' | 'limit' | 'stop';

export interface OrderInput {
  symbol: string;
  side: Side;
  type: OrderType;
  volume: number;
  price?: number;
  stopLoss?: number;
  takeProfit?: number;
}

/** The largest volume the shape check lets through; the programs' max_lots_per_order are far below it. */
const MAX_VOLUME = 1_000_000;

/**
 * Volume in lots: > 0 and an exact multiple of the lot step (0.01), judged on the exact decimal the
 * client sent (1e-9, 0.015 and 0.1 + 0.2 are refused, never rounded to a tradable size).
 */
export function validateVolume(volume: number): void {
  requireExactNumber(volume, 'volume', { unit: 'lots', step: LOT_STEP, max: MAX_VOLUME });
}

/**
 * Prices (limit/stop price, stop loss, take profit) are quoted in the instrument's digits: a price
 * with more decimals is refused, not rounded to a level the client did not ask for.
 */
export function validateOrderPrices(order: Pick<OrderInput, 'price' | 'stopLoss' | 'takeProfit'>, instrument: Pick<Instrument, 'digits'>): void {
  const rule = { decimals: instrument.digits };
  if (order.price !== undefined) requireExactNumber(order.price, 'price', rule);
  if (order.stopLoss !== undefined) requireExactNumber(order.stopLoss, 'stop_loss', rule);
  if (order.takeProfit !== undefined) requireExactNumber(order.takeProfit, 'take_profit', rule);
}

/**
 * Shape checks that need the market: a limit or stop price on the wrong side of the market is
 * refused (it would fill at once), and stop loss / take profit must sit on the right side of
 * the entry (buy: stop_loss < entry < take_profit; sell reversed). Returns the entry price.
 */
export function validateOrderAgainstMarket(order: OrderInput, quote: Pick<Quote, 'bid' | 'ask'>): number {
  for (const [value, param] of [[order.price, 'price'], [order.stopLoss, 'stop_loss'], [order.takeProfit, 'take_profit']] as const) {
    if (value !== undefined) requireExactNumber(value, param, {});
  }
  let entry: number;
  if (order.type === 'market') {
    entry = entryPrice(order.side, quote);
  } else {
    if (order.price === undefined) throw new AppError('invalid_request', `price is required for a ${order.type} order`, 'price');
    entry = order.price;
    const reference = entryPrice(order.side, quote);
    const ok =
      order.type === 'limit'
        ? order.side === 'buy' ? entry < reference : entry > reference
        : order.side === 'buy' ? entry > reference : entry < reference;
    if (!ok) {
      const above = (order.side === 'buy') !== (order.type === 'limit');
      const want = `${above ? 'above' : 'below'} the ${order.side === 'buy' ? 'ask' : 'bid'}`;
      throw new AppError('invalid_request', `a ${order.side} ${order.type} price must be ${want} (${reference})`, 'price');
    }
  }
  if (order.stopLoss !== undefined) {
    const ok = order.side === 'buy' ? order.stopLoss < entry : order.stopLoss > entry;
    if (!ok) throw new AppError('invalid_request', `stop_loss must be ${order.side === 'buy' ? 'below' : 'above'} the entry price ${entry}`, 'stop_loss');
  }
  if (order.takeProfit !== undefined) {
    const ok = order.side === 'buy' ? order.takeProfit > entry : order.takeProfit < entry;
    if (!ok) throw new AppError('invalid_request', `take_profit must be ${order.side === 'buy' ? 'above' : 'below'} the entry price ${entry}`, 'take_profit');
  }
  return entry;
}

export interface PreOrderViolation {
  /** The rule, named in the reason too (SPEC 15: the message names the rule). */
  rule: PreOrderRule;
  reason: string;
}

/**
 * SPEC 14: while an operator has halted the account, every new order is refused (rule halted),
 * before the terms' own rules; open positions and their evaluation are not concerned.
 */
export function haltedViolation(account: { number: number; tradingHalted: boolean }): PreOrderViolation | undefined {
  if (!account.tradingHalted) return undefined;
  return { rule: 'halted', reason: `halted: trading on account ${account.number} is halted by the firm; new orders are refused until it is resumed` };
}

/** The order's size and instrument against the terms (SPEC 9): max_lots_per_order, allowed symbols. */
export function sizeViolation(order: Pick<OrderInput, 'symbol' | 'volume'>, terms: Terms): PreOrderViolation | undefined {
  if (order.volume > terms.maxLotsPerOrder) {
    return { rule: 'max_lots_per_order', reason: `max_lots_per_order (${terms.maxLotsPerOrder}): ${order.volume} lots is above the limit` };
  }
  if (terms.allowedSymbols && !terms.allowedSymbols.includes(order.symbol)) {
    return { rule: 'symbol_not_allowed', reason: `symbol_not_allowed (${terms.allowedSymbols.join(', ')}): ${order.symbol} may not be traded` };
  }
  return undefined;
}

/** Free margin at the terms' leverage (SPEC 9). */
export function marginViolation(terms: Terms, margin: { required: number; equity: number; used: number }): PreOrderViolation | undefined {
  const free = margin.equity - margin.used;
  if (margin.required > free + 1e-9) {
    return {
      rule: 'insufficient_margin',
      reason: `insufficient_margin (1:${terms.leverage}): the order needs ${margin.required.toFixed(2)} margin, free margin is ${free.toFixed(2)}`,
    };
  }
  return undefined;
}

/** Pre-order rules of section 9's terms; the first violation refuses the order (SPEC 15's: rule-pack.ts). */
export function checkPreOrderRules(
  order: Pick<OrderInput, 'symbol' | 'volume'>,
  terms: Terms,
  margin: { required: number; equity: number; used: number },
): PreOrderViolation | undefined {
  return sizeViolation(order, terms) ?? marginViolation(terms, margin);
}

/** Whether a resting order triggers at this quote (buy limit: ask <= price; buy stop: ask >= price; sell limit: bid >= price; sell stop: bid <= price). */
export function pendingTriggers(order: { side: Side; type: OrderType; price: number }, quote: Pick<Quote, 'bid' | 'ask'>): boolean {
  if (order.side === 'buy') return order.type === 'limit' ? quote.ask <= order.price : quote.ask >= order.price;
  return order.type === 'limit' ? quote.bid >= order.price : quote.bid <= order.price;
}

export type ExitReason = 'stop_loss' | 'take_profit';

/** Stop loss / take profit hit at this quote (marked at bid for a buy, ask for a sell); closes at the level. */
export function protectiveExit(
  position: { side: Side; stopLoss: number | null; takeProfit: number | null },
  quote: Pick<Quote, 'bid' | 'ask'>,
): { reason: ExitReason; price: number } | undefined {
  const mark = exitPrice(position.side, quote);
  if (position.side === 'buy') {
    if (position.stopLoss !== null && mark <= position.stopLoss) return { reason: 'stop_loss', price: position.stopLoss };
    if (position.takeProfit !== null && mark >= position.takeProfit) return { reason: 'take_profit', price: position.takeProfit };
  } else {
    if (position.stopLoss !== null && mark >= position.stopLoss) return { reason: 'stop_loss', price: position.stopLoss };
    if (position.takeProfit !== null && mark <= position.takeProfit) return { reason: 'take_profit', price: position.takeProfit };
  }
  return undefined;
}

/** The extremes of the quotes a burst collapsed into one evaluation (see the engine's queue). */
export interface QuoteRange {
  lowBid: number;
  highBid: number;
  lowAsk: number;
  highAsk: number;
}

export function rangeOf(quote: Pick<Quote, 'bid' | 'ask'>): QuoteRange {
  return { lowBid: quote.bid, highBid: quote.bid, lowAsk: quote.ask, highAsk: quote.ask };
}

export function widenRange(range: QuoteRange, quote: Pick<Quote, 'bid' | 'ask'>): QuoteRange {
  return {
    lowBid: Math.min(range.lowBid, quote.bid),
    highBid: Math.max(range.highBid, quote.bid),
    lowAsk: Math.min(range.lowAsk, quote.ask),
    highAsk: Math.max(range.highAsk, quote.ask),
  };
}

/** pendingTriggers over every price a collapsed burst went through, not only its last quote. */
export function pendingTriggersInRange(order: { side: Side; type: OrderType; price: number }, r: QuoteRange): boolean {
  const reached = order.side === 'buy' ? (order.type === 'limit' ? r.lowAsk : r.highAsk) : order.type === 'limit' ? r.highBid : r.lowBid;
  return pendingTriggers(order, { bid: reached, ask: reached });
}

/**
 * protectiveExit over a collapsed burst: the stop loss is checked at the most adverse price
 * (lowest bid for a buy, highest ask for a sell) first, then the take profit at the most favourable.
 */
export function protectiveExitInRange(
  position: { side: Side; stopLoss: number | null; takeProfit: number | null },
  r: QuoteRange,
): { reason: ExitReason; price: number } | undefined {
  return protectiveExit(position, { bid: r.lowBid, ask: r.highAsk }) ?? protectiveExit(position, { bid: r.highBid, ask: r.lowAsk });
}
