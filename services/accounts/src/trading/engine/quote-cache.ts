import type { Sequelize } from '@propdesk/kit';
import { loadQuotes, upsertQuotes } from '../data/quotes';
import type { Quote } from '../domain/instruments';

/**
 * The latest quote of each symbol as this replica knows it (what positions are marked and orders
 * priced at), and its storage: a unary quote is stored at once, streamed ones by the engine's next
 * tick (the latest per symbol), which also picks up what other replicas stored. The prices of one
 * universe: the live market's, or a test clock's (`clockId`, SPEC 13).
 */
export class QuoteCache {
  readonly latest = new Map<string, Quote>();
  private readonly unsaved = new Map<string, Quote>();
  /** The time of the newest quote of each symbol this replica took for evaluation (taken), whether evaluated yet or not. */
  private readonly newestTaken = new Map<string, number>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly clockId: string | null = null,
  ) {}

  get(symbol: string): Quote | undefined {
    return this.latest.get(symbol);
  }

  /** A quote taken for evaluation: the symbol's price from now on. */
  set(quote: Quote): void {
    this.latest.set(quote.symbol, quote);
  }

  /** Every stored quote (the engine's first load: the positions it indexes are marked at them). */
  async load(): Promise<void> {
    for (const q of await loadQuotes(this.sequelize, undefined, this.clockId)) {
      this.latest.set(q.symbol, q);
      this.taken(q);
    }
  }

  /** A quote on its way to evaluation (received by this replica, or picked up): whether it is the newest of its symbol so far. */
  taken(quote: Quote): boolean {
    const time = quote.time.getTime();
    if (time <= (this.newestTaken.get(quote.symbol) ?? -Infinity)) return false;
    this.newestTaken.set(quote.symbol, time);
    return true;
  }

  /**
   * The stored quotes newer than the cached ones (other replicas' quotes) become the symbols'
   * prices. Returned: those newer than any quote this replica took, i.e. quotes it never received
   * (a fan-out lost with its LISTEN connection, or sent while the replicas disagreed on who is a
   * member): the engine evaluates them, so no breach waits for the symbol's next quote.
   */
  async pickUp(symbol?: string): Promise<Quote[]> {
    const missed: Quote[] = [];
    for (const q of await loadQuotes(this.sequelize, symbol, this.clockId)) {
      const cached = this.latest.get(q.symbol);
      if (!cached || q.time.getTime() > cached.time.getTime()) this.latest.set(q.symbol, q);
      if (this.taken(q)) missed.push(q);
    }
    return missed;
  }

  /** A unary quote, taken and stored at once. */
  store(quote: Quote): Promise<void> {
    this.taken(quote);
    return upsertQuotes(this.sequelize, [quote], undefined, this.clockId);
  }

  /** A streamed quote, stored by the next flush (only the latest of its symbol). */
  storeLater(quote: Quote): void {
    this.taken(quote);
    this.unsaved.set(quote.symbol, quote);
  }

  async flush(): Promise<void> {
    if (this.unsaved.size === 0) return;
    const batch = [...this.unsaved.values()];
    this.unsaved.clear();
    await upsertQuotes(this.sequelize, batch, undefined, this.clockId);
  }
}
