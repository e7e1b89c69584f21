import type { handleClientStreamingCall } from '@grpc/grpc-js';
import { toServiceError } from '@propdesk/kit';
import type { tradingv1 } from '@propdesk/proto';
import type { Quote } from '../domain/instruments';
import { receivedQuote } from '../use-cases/publish-quote';
import type { LiveEngine } from '../use-cases/trading-context';

/**
 * StreamQuotes, the feed's path: every well-formed quote goes to the engine as it arrives
 * (bursts per symbol collapse there); a malformed one is counted and skipped, so one bad quote
 * never ends a feed. The answer, once the feed ends its side, counts both.
 */
export function createStreamQuotesHandler(engine: LiveEngine): handleClientStreamingCall<tradingv1.StreamQuotesRequest, tradingv1.StreamQuotesResponse> {
  return (call, callback) => {
    let accepted = 0;
    let rejected = 0;
    const inFlight = new Set<Promise<void>>();
    call.on('data', (req: tradingv1.StreamQuotesRequest) => {
      let quote: Quote;
      try {
        quote = receivedQuote(req.quote);
      } catch {
        rejected += 1;
        return;
      }
      accepted += 1;
      const done: Promise<void> = engine.streamQuote(quote).finally(() => inFlight.delete(done));
      inFlight.add(done);
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
