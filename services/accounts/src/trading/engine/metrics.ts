import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the engine reports about its feed, in the service's metrics registry (kit/metrics.ts), or one of its own (two engines in one process do not collide). */
export interface EngineMetrics {
  registry: Registry;
  /** Quotes taken by the engine (unary and streamed). */
  received: Counter;
  /** Quotes evaluated one by one (every rule at that quote). */
  evaluated: Counter;
  /** Quotes merged into a newer quote of their symbol before evaluation: this engine judges every quote, so it stays 0 (kept so a dashboard or the bench can show it). */
  collapsed: Counter;
  /** Position marks made (a quote marks every live position of its symbol this replica evaluates). */
  marks: Counter;
  /** Accounts marked exactly by a quote (their floating sum left the band inside which nothing about them can change; account-table.ts watch). */
  exactMarks: Counter;
  /** Quotes received and not yet evaluated. */
  backlog: Gauge;
  /** Age of the oldest quote not yet evaluated, in seconds (0 when caught up). */
  lag: Gauge;
  /** Live positions in this replica's index. */
  positions: Gauge;
  /** Verdict connections warmed by a rehearsed breach: each of the pool's when first used, and again after the pool reopened one. */
  rehearsals: Counter;
  /** From a quote's arrival to the committed verdict (breach or pass) it caused. */
  verdictLatency: Histogram;
  /** The locked re-check and verdict transaction alone (evaluate-account.ts). */
  verdictTransaction: Histogram;
}

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createEngineMetrics(registry: Registry = new Registry()): EngineMetrics {
  const c = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const g = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  return {
    registry,
    received: c('propdesk_trading_quotes_received_total', 'Quotes taken by the trading engine'),
    evaluated: c('propdesk_trading_quotes_evaluated_total', 'Quotes evaluated individually for every rule'),
    collapsed: c('propdesk_trading_quotes_collapsed_total', 'Quotes merged into a newer quote of their symbol before evaluation'),
    marks: c('propdesk_trading_position_marks_total', 'Position marks made by the engine'),
    exactMarks: c('propdesk_trading_exact_account_marks_total', 'Accounts marked exactly by a quote (their floating P/L left its band)'),
    backlog: g('propdesk_trading_quote_backlog', 'Quotes received and not yet evaluated'),
    lag: g('propdesk_trading_feed_lag_seconds', 'Age of the oldest quote not yet evaluated'),
    positions: g('propdesk_trading_live_positions', 'Live positions in this replica index'),
    rehearsals: c('propdesk_trading_verdict_rehearsals_total', 'Verdict connections warmed by a rehearsed, rolled-back breach'),
    verdictLatency: new Histogram({
      name: 'propdesk_trading_verdict_latency_seconds',
      help: 'From a quote arriving to the committed breach or pass it caused',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    verdictTransaction: new Histogram({
      name: 'propdesk_trading_verdict_transaction_seconds',
      help: 'The locked re-check and verdict transaction',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
}
