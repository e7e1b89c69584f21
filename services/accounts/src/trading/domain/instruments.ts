import { AppError, requireExactNumber } from '@propdesk/kit';

export interface Instrument {
  symbol: string;
  /** Units of the base per lot (EURUSD 100,000; XAUUSD 100 oz; US30 and BTCUSD 1). */
  contractSize: number;
  digits: number;
  baseCurrency: string;
  quoteCurrency: string;
  /** SPEC 15: the currencies whose news concern it (its two currencies; a metal, index or coin is none). */
  newsCurrencies: readonly string[];
}

export const INSTRUMENTS: readonly Instrument[] = [
  { symbol: 'EURUSD', contractSize: 100_000, digits: 5, baseCurrency: 'EUR', quoteCurrency: 'USD', newsCurrencies: ['EUR', 'USD'] },
  { symbol: 'GBPUSD', contractSize: 100_000, digits: 5, baseCurrency: 'GBP', quoteCurrency: 'USD', newsCurrencies: ['GBP', 'USD'] },
  { symbol: 'USDJPY', contractSize: 100_000, digits: 3, baseCurrency: 'USD', quoteCurrency: 'JPY', newsCurrencies: ['USD', 'JPY'] },
  { symbol: 'XAUUSD', contractSize: 100, digits: 2, baseCurrency: 'XAU', quoteCurrency: 'USD', newsCurrencies: ['USD'] },
  { symbol: 'US30', contractSize: 1, digits: 2, baseCurrency: 'US30', quoteCurrency: 'USD', newsCurrencies: ['USD'] },
  { symbol: 'BTCUSD', contractSize: 1, digits: 2, baseCurrency: 'BTC', quoteCurrency: 'USD', newsCurrencies: ['USD'] },
  { symbol: 'AUDUSD', contractSize: 100_000, digits: 5, baseCurrency: 'AUD', quoteCurrency: 'USD', newsCurrencies: ['AUD', 'USD'] },
  { symbol: 'NZDUSD', contractSize: 100_000, digits: 5, baseCurrency: 'NZD', quoteCurrency: 'USD', newsCurrencies: ['NZD', 'USD'] },
  { symbol: 'XAGUSD', contractSize: 5_000, digits: 3, baseCurrency: 'XAG', quoteCurrency: 'USD', newsCurrencies: ['USD'] },
  { symbol: 'ETHUSD', contractSize: 1, digits: 2, baseCurrency: 'ETH', quoteCurrency: 'USD', newsCurrencies: ['USD'] },
];

const BY_SYMBOL = new Map(INSTRUMENTS.map((i) => [i.symbol, i]));

export function findInstrument(symbol: string): Instrument | undefined {
  return BY_SYMBOL.get(symbol);
}

export function requireInstrument(symbol: string, param = 'symbol'): Instrument {
  const instrument = typeof symbol === 'string' ? BY_SYMBOL.get(symbol.toUpperCase()) : undefined;
  if (!instrument) throw new AppError('invalid_request', `unknown symbol ${JSON.stringify(symbol)}`, param);
  return instrument;
}

export interface Quote {
  symbol: string;
  bid: number;
  ask: number;
  time: Date;
}

export function mid(quote: Pick<Quote, 'bid' | 'ask'>): number {
  return (quote.bid + quote.ask) / 2;
}

/** Looks up the latest quote of a symbol; the engine passes its cache. */
export type QuoteLookup = (symbol: string) => Quote | undefined;

/**
 * Converts an amount in `currency` to USD (the only account currency today).
 *
 * Convention: a JPY amount is divided by the USDJPY rate. When the position being valued is
 * itself USDJPY, the rate is that position's own closing/marking price (the textbook
 * (close - open) * units / close); otherwise the current USDJPY mid. Non-USD, non-JPY quote
 * currencies would need their own pair and are not listed.
 */
export function toUsd(amount: number, currency: string, quotes: QuoteLookup, ownRate?: { symbol: string; price: number }): number {
  if (currency === 'USD') return amount;
  if (currency === 'JPY') {
    const rate = ownRate && ownRate.symbol === 'USDJPY' ? ownRate.price : (() => {
      const q = quotes('USDJPY');
      return q ? mid(q) : undefined;
    })();
    if (!rate || !(rate > 0)) throw new AppError('unavailable', 'no USDJPY quote to convert JPY to USD yet');
    return amount / rate;
  }
  throw new AppError('internal_error', `no conversion from ${currency}`);
}

export function roundMoney(amount: number): number {
  return Math.round((amount + Number.EPSILON * Math.sign(amount)) * 100) / 100;
}

/** bid <= ask, finite, > 0, in the instrument's digits, known symbol; otherwise invalid_request naming the field. The caller stamps the time. */
export function validateQuote(input: { symbol?: string; bid?: number; ask?: number }, prefix = 'quote.'): Omit<Quote, 'time'> {
  const instrument = requireInstrument(input.symbol ?? '', `${prefix}symbol`);
  // A quote is stored and traded at exactly the prices given: finer than the instrument quotes is refused.
  const bid = requireExactNumber(input.bid, `${prefix}bid`, { decimals: instrument.digits });
  const ask = requireExactNumber(input.ask, `${prefix}ask`, { decimals: instrument.digits });
  if (bid > ask) throw new AppError('invalid_request', 'bid must not be above ask', `${prefix}bid`);
  return { symbol: instrument.symbol, bid, ask };
}
