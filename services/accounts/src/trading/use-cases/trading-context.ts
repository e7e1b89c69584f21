import { AppError, type Logger, type Sequelize, type Statement, type TenantScope, type Transaction } from '@propdesk/kit';
import type { PhaseLifecycle } from '../core-port';
import type { Position } from '../data/positions';
import { equityMinutesStatement, upsertEquityMinutes } from '../data/equity-minutes';
import type { Clock } from '../domain/clock';
import { roundMoney, type Quote, type QuoteLookup } from '../domain/instruments';
import { equityOf, exitPrice, floatingProfit } from '../domain/pnl';

/** What the trading use cases run with; the engine provides the quote cache and the clock. */
export interface TradingContext {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  /** The engine's clock (domain/clock.ts), as the instant the use case runs at. */
  now(): Date;
  quote: QuoteLookup;
  /** The core's side of progression and resets (absent: a pass just ends in passed, resets are unavailable). */
  lifecycle?: PhaseLifecycle;
  /**
   * Inside a write's transaction, once the account row is locked: for an account on a test clock
   * (SPEC 13), that the clock still stands where `now()` was read (ready, at that time), else 409
   * conflict (an advance began meanwhile, and its steps lock the clock's accounts); nothing on
   * the live market.
   */
  checkTime?(tx: Transaction): Promise<void>;
}

/**
 * Where an account trades (SPEC 13): the live market (the engine), or its test clock's time and
 * prices. What the RPCs' use cases decide by, and how they let the market see what they changed.
 */
export interface Market {
  /** The context: this market's time and prices (the live one after the engine's first load). */
  context(): Promise<TradingContext>;
  /** The freshest stored quote of a symbol, so an order priced here sees quotes other replicas received. */
  refreshQuote(symbol: string): Promise<Quote | undefined>;
  /** After an order, close, breach, reset or payout: evaluate that account at once and write its marks. */
  afterAccountChange(accountNumber: number): Promise<void>;
  /** Today's start-of-day balance as the market's engine knows it (null when it does not). */
  startOfDayBalance(accountNumber: number): number | null;
}

/** A test clock's own prices (SPEC 13). */
export interface ClockQuotes {
  /** Stored at the clock's time and evaluated at once for the clock's accounts, as a live quote is for the market's. */
  publishClockQuote(clock: { id: string; frozenTime: Date }, quote: Quote): Promise<void>;
}

/** Every account's market: what the RPCs' use cases trade through. */
export interface Markets {
  /**
   * The market of an account as seen from `scope` (a live scope's accounts are never on a clock).
   * `write`: an account whose clock is advancing is refused with 409 conflict.
   */
  of(scope: TenantScope, accountNumber: number, purpose: 'read' | 'write'): Promise<Market>;
}

/**
 * The live market (TradingEngine implements it): its context once quotes and the live-position
 * index are loaded, the hooks that keep its in-memory view in step with what a request changed,
 * and the market data that moves it.
 */
export interface LiveEngine extends Market {
  /** The time the engine decides by: a quote taken through the API is stamped with it. */
  readonly clock: Clock;
  /** A unary quote: stored at once, evaluated before the promise resolves. */
  publishQuote(quote: Quote): Promise<void>;
  /** A streamed quote: stored by the next tick, evaluated on its own and in arrival order; resolves once evaluated. */
  streamQuote(quote: Quote): Promise<void>;
  /** Quotes received and not yet evaluated (the feed stops reading above a high-water mark). */
  feedBacklog(): number;
  /** Resolves once fewer than `below` quotes wait. */
  backlogBelow(below: number): Promise<void>;
}

export function requireQuote(ctx: TradingContext, symbol: string): Quote {
  const quote = ctx.quote(symbol);
  if (!quote) throw new AppError('unavailable', `no quote for ${symbol} yet; the market-data feed has not priced it`);
  return quote;
}

/** Equity of an account from its positions as stored (the transaction's view), at the cached quotes. */
export function equityFromPositions(ctx: TradingContext, balance: number, positions: Position[]): number {
  return equityOf(
    balance,
    positions.filter((p) => p.status === 'open' && p.openPrice !== null).map((p) => ({ symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice as number })),
    ctx.quote,
  );
}

/** A point on the equity curve at a fill, close or verdict (merged into that minute's bucket). */
export async function recordEquityPoint(ctx: TradingContext, tx: Transaction, accountNumber: number, time: Date, equity: number, balance: number): Promise<void> {
  await upsertEquityMinutes(ctx.sequelize, [equityPoint(accountNumber, time, equity, balance)], tx);
}

/** recordEquityPoint's statement, to run with others (executeTogether). */
export function equityPointStatement(accountNumber: number, time: Date, equity: number, balance: number): Statement {
  return equityMinutesStatement([equityPoint(accountNumber, time, equity, balance)]);
}

function equityPoint(accountNumber: number, time: Date, equity: number, balance: number) {
  const minute = new Date(Math.floor(time.getTime() / 60_000) * 60_000);
  return { accountNumber, minute, open: equity, high: equity, low: equity, close: equity, balance };
}

/** A position with the price it is marked at and its floating P/L, at the cached quote (null unless open and priced). */
export interface MarkedPosition extends Position {
  floatingProfit: number | null;
  currentPrice: number | null;
}

export function markPosition(ctx: TradingContext, p: Position): MarkedPosition {
  const quote = p.status === 'open' && p.openPrice !== null ? ctx.quote(p.symbol) : undefined;
  if (quote === undefined) return { ...p, floatingProfit: null, currentPrice: null };
  const floating = roundMoney(floatingProfit({ symbol: p.symbol, side: p.side, volume: p.volume, openPrice: p.openPrice as number }, ctx.quote));
  return { ...p, floatingProfit: floating, currentPrice: exitPrice(p.side, quote) };
}
