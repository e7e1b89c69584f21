import { accountsv1, type tradingv1 } from '@propdesk/proto';
import { z } from 'zod';
import { isoTime as iso } from './common';

/**
 * Test clocks in their REST shape (SPEC 13), written once for the gateway (which names the
 * schemas in its document) and anyone else showing a clock.
 */
export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;

export const restTestClockSchema = z
  .object({
    id: z.string().describe('clock_...'),
    name: z.string().nullable(),
    frozen_time: z
      .string()
      .datetime()
      .describe('the time its accounts live at; while advancing, the time it is advancing to'),
    status: z.enum(TEST_CLOCK_STATUSES).describe('advancing: walking forward in the background (test_clock.ready follows); it then refuses another advance and its quotes (409)'),
    livemode: z.literal(false).describe('always false: clocks exist in test mode only'),
    created_at: z.string().datetime(),
  })
  .strict();

export type RestTestClock = z.output<typeof restTestClockSchema>;

export function toRestTestClock(clock: accountsv1.TestClock): RestTestClock {
  return {
    id: clock.id,
    name: clock.name === '' ? null : clock.name,
    frozen_time: iso(clock.frozenTime),
    status: clock.status === accountsv1.TestClockStatus.TEST_CLOCK_STATUS_ADVANCING ? 'advancing' : 'ready',
    livemode: false,
    created_at: iso(clock.createdAt),
  };
}

export const restTestClockDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).strict();

/** A clock's own quote as taken: its time is the clock's frozen_time. */
export const restClockQuoteSchema = z
  .object({ symbol: z.string(), bid: z.number(), ask: z.number(), time: z.string().datetime().describe("the clock's frozen_time") })
  .strict();

export function toRestClockQuote(quote: tradingv1.Quote): z.output<typeof restClockQuoteSchema> {
  return { symbol: quote.symbol, bid: quote.bid, ask: quote.ask, time: iso(quote.time) };
}
