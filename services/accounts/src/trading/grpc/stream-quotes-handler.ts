import type { handleClientStreamingCall } from '@grpc/grpc-js';
import { toServiceError } from '@propdesk/kit';
import type { tradingv1 } from '@propdesk/proto';
import type { Quote } from '../domain/instruments';
import { receivedQuote } from '../use-cases/publish-quote';
import type { LiveEngine } from '../use-cases/trading-context';

/** The feed stops being read once this many quotes wait for evaluation, and resumes below the low mark. */
export const FEED_HIGH_WATER = 2000;
export const FEED_LOW_WATER = 500;

/**
 * StreamQuotes, the feed's path: every well-formed quote goes to the engine as it arrives and is
 * evaluated on its own; a malformed one is counted and skipped, so one bad quote never ends a
 * feed. Back-pressure: while the engine's backlog is above FEED_HIGH_WATER the stream is paused,
 * so HTTP/2 flow control slows the sender instead of quotes piling up in memory. The answer, once
 * the feed ends its side and every quote was evaluated, counts both.
 */
export function createStreamQuotesHandler(engine: LiveEngine): handleClientStreamingCall<tradingv1.StreamQuotesRequest, tradingv1.StreamQuotesResponse> {
  return (call, callback) => {
    let accepted = 0;
    let rejected = 0;
    const inFlight = new Set<Promise<void>>();
    let paused = false;
    call.on('data', (req: tradingv1.StreamQuotesRequest) => {
      let quote: Quote;
      try {
        quote = receivedQuote(req.quote, engine.clock);
      } catch {
        rejected += 1;
        return;
      }
      accepted += 1;
      const done: Promise<void> = engine.streamQuote(quote).finally(() => inFlight.delete(done));
      inFlight.add(done);
      if (!paused && engine.feedBacklog() >= FEED_HIGH_WATER) {
        paused = true;
        call.pause();
        void engine.backlogBelow(FEED_LOW_WATER).then(() => {
          paused = false;
          call.resume();
        });
      }
    });
    call.on('error', () => undefined);
    call.on('end', () => {
      Promise.all([...inFlight]).then(
        () => callback(null, { accepted: String(accepted), rejected: String(rejected) }),
        (err: unknown) => callback(toServiceError(err), null),
      );
    });
  };
}
