import { AppError, type Logger, type Sequelize, type Transaction } from '@propdesk/kit';
import { clockState, type PhaseLifecycle } from '../core-port';
import { loadQuotes } from '../data/quotes';
import type { Quote } from '../domain/instruments';
import type { TradingContext } from './trading-context';

/** What a test clock's market is built with (main.ts: the same as the live engine's). */
export interface ClockDeps {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  lifecycle?: PhaseLifecycle;
}

/** A test clock's writes wait for it: 409 conflict while it advances (SPEC 13). */
export function clockAdvancing(clockId: string): AppError {
  return new AppError('conflict', `test clock ${clockId} is advancing; wait for test_clock.ready`);
}

/**
 * The moment and prices a test clock's accounts are judged at (SPEC 13): its market, or one step
 * of its advance. A write made in it checks under its account lock that the clock still stands
 * there (checkTime): an advance's steps lock the clock's accounts, so a write that waited for one
 * sees the clock moved and is refused rather than recorded at a time the clock has left.
 */
export function clockContext(deps: ClockDeps, clockId: string, at: Date, quotes: ReadonlyMap<string, Quote>): TradingContext {
  const { sequelize, logger, rolloverHourUtc, lifecycle } = deps;
  return {
    sequelize,
    logger,
    rolloverHourUtc,
    lifecycle,
    now: () => new Date(at.getTime()),
    quote: (symbol) => quotes.get(symbol),
    checkTime: (tx) => requireClockAt(sequelize, tx, clockId, at),
  };
}

async function requireClockAt(sequelize: Sequelize, tx: Transaction, clockId: string, at: Date): Promise<void> {
  const state = await clockState(sequelize, clockId, tx);
  if (!state || state.status !== 'ready' || state.frozenTime.getTime() !== at.getTime()) throw clockAdvancing(clockId);
}

/** The latest prices of a clock's universe. */
export async function clockQuotes(sequelize: Sequelize, clockId: string): Promise<Map<string, Quote>> {
  return new Map((await loadQuotes(sequelize, undefined, clockId)).map((q) => [q.symbol, q]));
}
