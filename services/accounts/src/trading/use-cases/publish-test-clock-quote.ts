import { AppError, effectTransaction, recordAudit, type ScopeFields } from '@propdesk/kit';
import { findTestClock, parseScope, parseTestClockId, requireTestMode, testClockNotFound } from '../core-port';
import { loadQuotes } from '../data/quotes';
import { validateQuote, type Quote } from '../domain/instruments';
import { clockAdvancing } from './clock-context';
import type { QuoteInput } from './publish-quote';
import type { ClockQuotes, TradingContext } from './trading-context';

/**
 * PublishTestClockQuote (POST /v1/test_clocks/{id}/quotes {symbol, bid, ask}): the clock's own
 * price at its frozen time, evaluated at once for the clock's accounts as a live quote would be
 * for the market's (fills, stop losses and take profits, breaches, passes, warnings); answered
 * once evaluated. Test mode only; an advancing clock refuses it (409 conflict).
 *
 * A key moving a clock's price is a change of the clock (it can fill orders and breach accounts),
 * so it is audited (test_clock.quote, the symbol's price before and after), unlike the live
 * market's feed. The entry is written with the answer, after the quote was stored and evaluated
 * by the clock's engine (which stores it in transactions of its own): a request answered has its
 * entry, and a retry of one that was not stores the quote again and writes it then.
 */
export async function publishTestClockQuote(
  clocks: ClockQuotes,
  ctx: Pick<TradingContext, 'sequelize'>,
  req: ScopeFields & { testClockId: string; quote?: QuoteInput },
): Promise<Quote> {
  const scope = parseScope(req);
  requireTestMode(scope);
  const clock = await findTestClock(ctx.sequelize, scope, parseTestClockId(req.testClockId));
  if (!clock) throw testClockNotFound();
  if (!req.quote) throw new AppError('invalid_request', 'quote is required', 'quote');
  // Named as the REST body names them (symbol, bid, ask).
  const quote: Quote = { ...validateQuote(req.quote, ''), time: clock.frozenTime };
  if (clock.status === 'advancing') throw clockAdvancing(clock.id);
  const [previous] = await loadQuotes(ctx.sequelize, quote.symbol, clock.id);
  await clocks.publishClockQuote(clock, quote);
  // The answer is recorded for an Idempotency-Key once the quote is stored and evaluated: a retry
  // after a crash before this point takes the quote again (storing and judging it twice changes nothing).
  return effectTransaction(ctx.sequelize, async (tx) => {
    const price = (q: Quote | undefined) => (q ? { bid: q.bid, ask: q.ask } : null);
    await recordAudit(tx, { scope, action: 'test_clock.quote', target: { type: 'test_clock', id: clock.id }, changes: { [quote.symbol]: [price(previous), price(quote)] } });
    return quote;
  });
}
