import { AppError } from '@propdesk/kit';
import type { Clock } from '../domain/clock';
import { validateQuote, type Quote } from '../domain/instruments';
import type { LiveEngine } from './trading-context';

export interface QuoteInput {
  symbol?: string;
  bid?: number;
  ask?: number;
}

/** A quote as the engine takes it: checked, and stamped with the time it arrived (feeds' clocks do not order our marks). */
export function receivedQuote(input: QuoteInput | undefined, clock: Clock): Quote {
  if (!input) throw new AppError('invalid_request', 'quote is required', 'quote');
  return { ...validateQuote(input, 'quote.'), time: new Date(clock.now()) };
}

/** PublishQuote: one quote, stored and evaluated before the answer (the CLI, tests). */
export async function publishQuote(engine: LiveEngine, input: QuoteInput | undefined): Promise<Quote> {
  const quote = receivedQuote(input, engine.clock);
  await engine.publishQuote(quote);
  return quote;
}
