// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import {
  auditRetention,
  poolSize,
  createCursorCodec,
  createLogger,
  createSecretBox,
  createServiceClient,
  loadConfig,
  migrate,
  openDatabase,
  ResourceStack,
  runMain,
  skipAuditEntriesForBenchmarks,
  serviceAddresses,
  idempotencyRecordsRetention,
  startMetricsServer,
  startRetention,
  watchDatabase,
  type Logger,
  type StartedProcess,
} from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { accountsConfigSchema } from './config';
import { createEventsNotifier } from './data/events-notifier';
import { purgeSessionsEndedBefore } from './data/executor-sessions';
import { compactEquityMinutes } from './trading/data/equity-retention';
import { coreMigrations } from './data/migrations';
import type { AccountsDeps } from './deps';
import { createServer } from './server';
import { tradingMigrations } from './trading/data/migrations';
import { TradingMarkets } from './trading/engine/clock-market';
import { TestClockRunner } from './trading/engine/clock-runner';
import { DeadlineScheduler } from './trading/engine/deadline-scheduler';
import { schedulePhaseDeadlines } from './trading/use-cases/time-rules';
import { PgCluster } from './trading/engine/cluster';
import { TradingEngine } from './trading/engine/trading-engine';
import { openClockPrices } from './trading/data/quotes';
import { systemClock } from './trading/domain/clock';
import { timeEffects } from './trading/use-cases/time-effects';
import { walkTestClock } from './trading/use-cases/walk-test-clock';
import { createTradingHandlers } from './trading/grpc/handlers';
import { startBackgroundJobs } from './use-cases/background-jobs';
import { createPhaseLifecycle } from './use-cases/phase-lifecycle';

export const SCHEMA = 'accounts';

/** The core's schema first: the trading tables reference accounts. */
export const MIGRATIONS = [...coreMigrations, ...tradingMigrations];

/** As many as the engine's verdicts run at once (its evaluation lanes). */
const VERDICT_CONNECTIONS = 4;

/** Test clocks' advances (SPEC 13): how often a replica looks for one nobody walks, and how long a walker's lease lasts unrenewed. */
const CLOCK_POLL_MS = 1000;
const CLOCK_LEASE_MS = 5000;

/** SPEC 15's time rules on live time: deadlines per transaction, and transactions at once. */
const RULE_DEADLINE_BATCH = 500;
const RULE_DEADLINE_LANES = 4;

export interface StartedAccountsService extends StartedProcess {
  /** The trading engine (tests wait on its hooks: caughtUp, settled). */
  engine: TradingEngine;
  /** What advances test clocks (tests wait on idle()). */
  clockRunner: TestClockRunner;
  /** SPEC 15's time rules on live time (tests run a pass: pass()). */
  deadlines: DeadlineScheduler;
}

/** Composition root: config, database, resources (auth client, events notifier, trading engine, background jobs), server. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedAccountsService> {
  const config = loadConfig(accountsConfigSchema, env, false);
  const logger = options.logger ?? createLogger('accounts', { level: config.LOG_LEVEL });
  const resources = new ResourceStack(logger);
  return resources.build(async () => {
    const metrics =
      config.ACCOUNTS_METRICS_PORT === undefined
        ? undefined
        : await resources.start('metrics', () => startMetricsServer({ host: config.GRPC_HOST, port: config.ACCOUNTS_METRICS_PORT!, service: 'accounts', logger }), (m) => m.close());
    if (config.BENCH_SKIP_AUDIT_ENTRIES) {
      skipAuditEntriesForBenchmarks();
      logger.warn('BENCH_SKIP_AUDIT_ENTRIES is set: this process writes no audit entry (benchmarks only)');
    }
    const sequelize = resources.add('database', openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, logger, poolMax: poolSize(20, config.DATABASE_POOL_MAX) }), (db) => db.close());
    await migrate(sequelize, SCHEMA, MIGRATIONS, logger);
    if (metrics) watchDatabase(metrics.registry, sequelize);
    // The trading engine's verdicts (breach, pass) run on connections of their own, kept open.
    const verdictDatabase = resources.add(
      'verdict database',
      openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, name: 'verdicts', logger, poolMax: VERDICT_CONNECTIONS, poolMin: VERDICT_CONNECTIONS }),
      (db) => db.close(),
    );

    const auth = resources.add(
      'auth client',
      createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, serviceAddresses(config).auth, config.GRPC_DEADLINE_MS, serviceAddresses(config).tls),
      (c) => c.close(),
    );
    const eventsNotifier = resources.add('events notifier', createEventsNotifier(config.DATABASE_URL, SCHEMA, logger), (n) => n.close());
    const deps: AccountsDeps = {
      config,
      logger,
      sequelize,
      cursors: createCursorCodec(config.CURSOR_SECRET),
      secretBox: createSecretBox(config.CREDENTIALS_KEY),
      authApi: auth.call,
      eventsNotifier,
      clock: systemClock,
    };
    // The trading module: its engine (quote cache, live-position index, rule evaluation) lives as
    // long as the process and is stopped after the gRPC drain, before the pool closes.
    const lifecycle = createPhaseLifecycle(deps);
    const engine = resources.add(
      'trading engine',
      new TradingEngine({
        sequelize,
        logger,
        rolloverHourUtc: config.TRADING_DAY_ROLLOVER_HOUR_UTC,
        lifecycle,
        metricsRegistry: metrics?.registry,
        verdicts: { sequelize: verdictDatabase, connections: VERDICT_CONNECTIONS },
        cluster: new PgCluster({
          sequelize,
          databaseUrl: config.DATABASE_URL,
          logger,
          leaseTtlMs: config.TRADING_LEASE_TTL_MS,
          renewMs: Math.min(config.TRADING_LEASE_RENEW_MS, Math.floor(config.TRADING_LEASE_TTL_MS / 2)),
        }),
      }),
      (e) => e.stop(),
    );
    // Test clocks (SPEC 13): each clock's market is the engine's code with the clock's time and
    // prices; advances are walked in the background by whichever replica holds their lease.
    const clockDeps = { sequelize, logger, rolloverHourUtc: config.TRADING_DAY_ROLLOVER_HOUR_UTC, lifecycle };
    const markets = new TradingMarkets(engine, clockDeps);
    const effects = timeEffects(config.TRADING_DAY_ROLLOVER_HOUR_UTC);
    const clockRunner = resources.add(
      'test clock runner',
      new TestClockRunner({
        sequelize,
        logger,
        pollMs: CLOCK_POLL_MS,
        leaseMs: CLOCK_LEASE_MS,
        walk: (clockId, runner, signal) => walkTestClock({ ...clockDeps, effects, leaseMs: CLOCK_LEASE_MS }, clockId, runner, signal),
      }),
      (r) => r.stop(),
    );
    deps.testClockMarket = {
      openPrices: (tx, clock) => openClockPrices(sequelize, tx, clock.id, clock.frozenTime),
      advanceRequested: () => clockRunner.kick(),
    };
    clockRunner.start();
    // SPEC 15's time rules: scheduled when their moment is known (a phase starts, a position under a
    // session rule, a lock), applied by this scheduler on live time and by a clock's advance on it.
    deps.phaseStarts = { started: (tx, accounts) => schedulePhaseDeadlines(sequelize, tx, accounts) };
    const deadlines = resources.add(
      'time rules',
      new DeadlineScheduler({
        sequelize,
        logger,
        clock: engine.clock,
        context: () => engine.context(),
        intervalMs: config.RULE_DEADLINES_INTERVAL_MS,
        batch: RULE_DEADLINE_BATCH,
        lanes: RULE_DEADLINE_LANES,
      }),
      (d) => d.stop(),
    );
    deadlines.start();
    const trading = createTradingHandlers({ engine, markets, cursors: deps.cursors, sequelize, logger });
    resources.add('background jobs', startBackgroundJobs(deps), (j) => j.stop());
    const retention = resources.add('retention', startRetention({ logger, intervalMs: config.RETENTION_INTERVAL_MS }), (r) => r.stop());
    retention.register({ name: 'executor sessions', horizonMs: config.SESSIONS_RETENTION, run: (cutoff) => purgeSessionsEndedBefore(sequelize, cutoff) });
    // Never younger than an hour: only completed, rolled hours are compacted.
    const equityHorizonMs = config.EQUITY_MINUTES_RETENTION > 0 ? Math.max(config.EQUITY_MINUTES_RETENTION, 3_600_000) : 0;
    retention.register({ name: 'equity minutes', horizonMs: equityHorizonMs, run: (cutoff) => compactEquityMinutes(sequelize, cutoff) });
    retention.register(idempotencyRecordsRetention(sequelize, config.IDEMPOTENCY_RECORDS_RETENTION));
    retention.register(auditRetention(sequelize, config.AUDIT_RETENTION));

    const server = await resources.start(
      'gRPC server',
      () => createServer(deps, { host: config.GRPC_HOST, port: config.ACCOUNTS_GRPC_PORT, trading, metrics: metrics?.registry }),
      async (s) => {
        // event streams never end on their own, and the server drain waits for them
        s.closeStreams();
        await s.shutdown();
      },
    );
    logger.info({ port: server.port }, 'accounts service listening');
    return { port: server.port, address: server.address, logger, retention, engine, clockRunner, deadlines, stop: () => resources.stop() };
  });
}

if (require.main === module) runMain(start);
