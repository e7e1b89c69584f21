import { findInstrument, roundMoney, toUsd, type Instrument, type Quote, type QuoteLookup } from './instruments';

export type Side = 'buy' | 'sell';

export interface PricedPosition {
  symbol: string;
  side: Side;
  volume: number;
  openPrice: number;
}

export function sideSign(side: Side): 1 | -1 {
  return side === 'buy' ? 1 : -1;
}

/** A buy is marked (and closed) at the bid, a sell at the ask. */
export function exitPrice(side: Side, quote: Pick<Quote, 'bid' | 'ask'>): number {
  return side === 'buy' ? quote.bid : quote.ask;
}

/** A buy fills at the ask, a sell at the bid. */
export function entryPrice(side: Side, quote: Pick<Quote, 'bid' | 'ask'>): number {
  return side === 'buy' ? quote.ask : quote.bid;
}

function instrumentOf(symbol: string): Instrument {
  const instrument = findInstrument(symbol);
  if (!instrument) throw new Error(`unknown instrument ${symbol}`);
  return instrument;
}

/** Profit in USD, unrounded, of a position closed (or marked) at `price`. */
export function rawProfit(position: PricedPosition, price: number, quotes: QuoteLookup): number {
  const instrument = instrumentOf(position.symbol);
  const inQuote = (price - position.openPrice) * position.volume * instrument.contractSize * sideSign(position.side);
  return toUsd(inQuote, instrument.quoteCurrency, quotes, { symbol: position.symbol, price });
}

/** Profit in USD rounded to cents, as booked into the balance. */
export function profitAt(position: PricedPosition, price: number, quotes: QuoteLookup): number {
  return roundMoney(rawProfit(position, price, quotes));
}

/** Floating P/L at the latest quote of the position's symbol (0 without one). */
export function floatingProfit(position: PricedPosition, quotes: QuoteLookup): number {
  const quote = quotes(position.symbol);
  if (!quote) return 0;
  return rawProfit(position, exitPrice(position.side, quote), quotes);
}

/** Margin in USD: volume * contract * price / leverage, converted from the quote currency. */
export function marginFor(symbol: string, volume: number, price: number, leverage: number, quotes: QuoteLookup): number {
  const instrument = instrumentOf(symbol);
  return toUsd((volume * instrument.contractSize * price) / leverage, instrument.quoteCurrency, quotes, { symbol, price });
}

/** Equity = balance + floating P/L of every open position, rounded to cents. */
export function equityOf(balance: number, positions: readonly PricedPosition[], quotes: QuoteLookup): number {
  let floating = 0;
  for (const p of positions) floating += floatingProfit(p, quotes);
  return roundMoney(balance + floating);
}
