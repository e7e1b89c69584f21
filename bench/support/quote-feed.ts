/** Quotes for the trading benches: a random walk per symbol, streamed at a steady rate through StreamQuotes. */
import type { tradingv1 } from '@propdesk/proto';

export type Quote = { symbol: string; bid: number; ask: number };

/** A symbol as the walk moves it: from its mid, by up to `step` a quote, within 1% either way. */
export interface WalkedSymbol {
  symbol: string;
  mid: number;
  spread: number;
  step: number;
  /** The instrument's digits (prices finer than it are refused by PublishQuote). */
  digits: number;
}

export const inDigits = (price: number, digits: number) => Number(price.toFixed(digits));

/** A random walk over the symbols, one symbol after the other, leaving out `skip`. */
export function walker(symbols: readonly WalkedSymbol[], skip?: string): () => Quote {
  const mids = symbols.map((s) => s.mid);
  const list = symbols.map((s, k) => ({ s, k })).filter((e) => e.s.symbol !== skip);
  let i = 0;
  return () => {
    const { s, k } = list[i++ % list.length];
    mids[k] = Math.max(s.mid * 0.99, Math.min(s.mid * 1.01, mids[k] + (Math.random() - 0.5) * 2 * s.step));
    return { symbol: s.symbol, bid: inDigits(mids[k], s.digits), ask: inDigits(mids[k] + s.spread, s.digits) };
  };
}

export interface Feed {
  /** Sends quotes at `rate` per second until stop(); extra quotes can be slipped in. */
  stop(): Promise<{ sent: number; seconds: number; drainMs: number; accepted: number; error?: string }>;
  inject(q: Quote): void;
}

export function feedAt(raw: tradingv1.TradingServiceClient, rate: number, next: () => Quote): Feed {
  let done: (v: tradingv1.StreamQuotesResponse) => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  const answer = new Promise<tradingv1.StreamQuotesResponse>((resolve, reject) => ((done = resolve), (fail = reject)));
  // A feed the service dropped (its event loop starved past the connection's pings) is reported by stop().
  answer.catch(() => undefined);
  const stream = raw.streamQuotes((err, res) => (err ? fail(err) : done(res)));
  const started = Date.now();
  let sent = 0;
  let blocked = false;
  const pump = () => {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (!blocked && sent < due) {
      sent += 1;
      if (!stream.write({ quote: next() })) {
        blocked = true;
        stream.once('drain', () => {
          blocked = false;
          pump();
        });
      }
    }
  };
  const timer = setInterval(pump, 5);
  return {
    inject(q) {
      stream.write({ quote: q });
    },
    async stop() {
      clearInterval(timer);
      const seconds = (Date.now() - started) / 1000;
      const ended = Date.now();
      stream.end();
      try {
        const res = await answer;
        return { sent, seconds, drainMs: Date.now() - ended, accepted: Number(res.accepted) };
      } catch (err) {
        return { sent, seconds, drainMs: Date.now() - ended, accepted: -1, error: (err as Error).message };
      }
    },
  };
}
