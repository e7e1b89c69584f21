import type { TenantScope } from '@propdesk/kit';
import { clockOfAccount, type ClockState } from '../core-port';
import { fixedClock } from '../domain/clock';
import type { Quote } from '../domain/instruments';
import { clockAdvancing, clockContext, clockQuotes, type ClockDeps } from '../use-cases/clock-context';
import type { ClockQuotes, LiveEngine, Market, Markets, TradingContext } from '../use-cases/trading-context';
import { TradingEngine } from './trading-engine';

/**
 * A test clock's engine for one call (SPEC 13): the live engine's code with the clock's time
 * (fixed at its frozen time), its prices and its accounts only, loaded for that call; stopped
 * after it, which writes its marks.
 */
export async function withClockEngine<T>(deps: ClockDeps, clock: { id: string; frozenTime: Date }, work: (engine: TradingEngine) => Promise<T>): Promise<T> {
  const engine = new TradingEngine({ ...deps, clock: fixedClock(clock.frozenTime), testClock: { id: clock.id } });
  try {
    return await work(engine);
  } finally {
    await engine.stop();
  }
}

/** The market of an account on a test clock: the clock's time and prices; a change is evaluated by a clock engine at once. */
export class ClockMarket implements Market {
  private quotes?: Map<string, Quote>;

  constructor(
    private readonly deps: ClockDeps,
    readonly clock: ClockState,
  ) {}

  async context(): Promise<TradingContext> {
    this.quotes ??= await clockQuotes(this.deps.sequelize, this.clock.id);
    return clockContext(this.deps, this.clock.id, this.clock.frozenTime, this.quotes);
  }

  /** A clock's prices move only by its own quotes, which an advancing clock refuses: what was read stands. */
  async refreshQuote(symbol: string): Promise<Quote | undefined> {
    await this.context();
    return this.quotes?.get(symbol);
  }

  afterAccountChange(accountNumber: number): Promise<void> {
    return withClockEngine(this.deps, this.clock, (engine) => engine.afterAccountChange(accountNumber));
  }

  startOfDayBalance(): number | null {
    return null;
  }
}

/**
 * Every account's market (SPEC 13): the live engine, or for a test account on a test clock that
 * clock's; and the clocks' own quotes, evaluated one at a time per clock in this process.
 */
export class TradingMarkets implements Markets, ClockQuotes {
  private readonly clockWork = new Map<string, Promise<unknown>>();

  constructor(
    private readonly live: LiveEngine,
    private readonly deps: ClockDeps,
  ) {}

  async of(scope: TenantScope, accountNumber: number, purpose: 'read' | 'write'): Promise<Market> {
    // A live account is never on a clock: no look for it.
    if (scope.livemode) return this.live;
    const clock = await clockOfAccount(this.deps.sequelize, scope, accountNumber);
    if (!clock) return this.live;
    if (purpose === 'write' && clock.status === 'advancing' && !clock.deleted) throw clockAdvancing(clock.id);
    return new ClockMarket(this.deps, clock);
  }

  /** A clock's own quote, stored at its time and evaluated at once for its accounts; a clock's quotes are taken in turn. */
  publishClockQuote(clock: { id: string; frozenTime: Date }, quote: Quote): Promise<void> {
    const before = this.clockWork.get(clock.id) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(() => withClockEngine(this.deps, clock, (engine) => engine.publishQuote(quote)));
    this.clockWork.set(clock.id, run);
    void run.finally(() => {
      if (this.clockWork.get(clock.id) === run) this.clockWork.delete(clock.id);
    }).catch(() => undefined);
    return run;
  }
}
