import type { Logger, Sequelize } from '@propdesk/kit';
import type { Registry } from 'prom-client';
import type { PhaseLifecycle } from '../core-port';
import type { Clock } from '../domain/clock';
import type { EngineCluster } from './cluster';

/** How a TradingEngine is built (main.ts; tests build their own with a clock or a tick of their choosing). */
export interface TradingEngineOptions {
  sequelize: Sequelize;
  logger: Logger;
  rolloverHourUtc: number;
  /** The time the engine and the use cases it runs decide by (default: the wall clock). */
  clock?: Clock;
  /** The core's side of the challenge lifecycle (main.ts wires it through the port). */
  lifecycle?: PhaseLifecycle;
  /** Background tick: persists streamed quotes, picks up other replicas' changes (default 250 ms). */
  tickMs?: number;
  /** How often pending marks are considered for writing (default 1000 ms). */
  equityFlushMs?: number;
  /**
   * A streamed mark is written to the account row once it moved by at least this much (USD,
   * default 1), or once it has waited `equityMaxAgeMs` (default 15 s); unary quotes write at once.
   */
  equityWriteThreshold?: number;
  equityMaxAgeMs?: number;
  /** A feed quote waiting longer than this is reported (log and the lag metric) (default 1000 ms). */
  lagWarnMs?: number;
  /**
   * Replicas splitting the work (engine/cluster.ts): this engine indexes and evaluates only the
   * accounts it owns, and receives every quote the other replicas receive. Without one, it owns all.
   */
  cluster?: EngineCluster;
  /**
   * One test clock's universe (SPEC 13) instead of the live market: the engine evaluates that
   * clock's accounts at the clock's prices and time (`clock`: its frozen time), loading them per
   * call (no index kept between calls, no background tick, no replicas). Such an engine is built
   * for one call and stopped after it (engine/clock-market.ts).
   */
  testClock?: { id: string };
  /** Where the engine's metrics go (the service's /metrics registry); default: a registry of its own. */
  metricsRegistry?: Registry;
  /**
   * A small pool of its own for the verdict transactions (verdict-gate.ts), which keeps its
   * `connections` open (min = max): a breach never waits behind the equity writer, a rebuild or an
   * order for a connection, and each connection rehearses a breach once the index holds accounts,
   * so no verdict pays for a new backend's cold caches. Without it, verdicts use `sequelize`.
   */
  verdicts?: { sequelize: Sequelize; connections: number };
}
