import {
  createCursorCodec,
  createLogger,
  createSecretBox,
  createServiceClient,
  loadConfig,
  migrate,
  onShutdownSignals,
  openDatabase,
  serviceAddresses,
  type Logger,
} from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { accountsConfigSchema } from './config';
import { createEventsNotifier } from './data/events-notifier';
import { coreMigrations } from './data/migrations';
import type { AccountsDeps } from './deps';
import { createServer } from './server';
import { tradingMigrations } from './trading/data/migrations';
import { TradingEngine } from './trading/engine/trading-engine';
import { createTradingHandlers } from './trading/grpc/handlers';
import { startBackgroundJobs } from './use-cases/background-jobs';
import { createPhaseLifecycle } from './use-cases/phase-lifecycle';

export const SCHEMA = 'accounts';

/** The core's schema first: the trading tables reference accounts. */
export const MIGRATIONS = [...coreMigrations, ...tradingMigrations];

export interface StartedAccountsService {
  port: number;
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

/** Composition root: config, database and migrations, wiring (core and trading engine), gRPC server, background jobs. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedAccountsService> {
  const config = loadConfig(accountsConfigSchema, env, false);
  const logger = options.logger ?? createLogger('accounts', { level: config.LOG_LEVEL });
  const sequelize = openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, logger, poolMax: 20 });
  try {
    await migrate(sequelize, SCHEMA, MIGRATIONS, logger);
  } catch (err) {
    await sequelize.close();
    throw err;
  }
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, serviceAddresses(config).auth, config.GRPC_DEADLINE_MS);
  const eventsNotifier = createEventsNotifier(config.DATABASE_URL, SCHEMA, logger);
  const deps: AccountsDeps = {
    config,
    logger,
    sequelize,
    cursors: createCursorCodec(config.CURSOR_SECRET),
    secretBox: createSecretBox(config.CREDENTIALS_KEY),
    authApi: auth.call,
    eventsNotifier,
  };
  // The trading module: its engine (quote cache, live-position index, rule evaluation) lives as
  // long as the process and is stopped after the gRPC drain, before the pool closes.
  const engine = new TradingEngine({ sequelize, logger, rolloverHourUtc: config.TRADING_DAY_ROLLOVER_HOUR_UTC, lifecycle: createPhaseLifecycle(deps) });
  const trading = createTradingHandlers({ engine, cursors: deps.cursors });

  let server;
  try {
    server = await createServer(deps, { host: config.GRPC_HOST, port: config.ACCOUNTS_GRPC_PORT, trading });
  } catch (err) {
    await engine.stop();
    auth.close();
    await eventsNotifier.close();
    await sequelize.close();
    throw err;
  }
  const jobs = startBackgroundJobs(deps);
  logger.info({ port: server.port }, 'accounts service listening');

  let stopping: Promise<void> | undefined;
  const started = server;
  return {
    port: started.port,
    address: started.address,
    logger,
    stop() {
      stopping ??= (async () => {
        started.closeStreams();
        await started.shutdown();
        await jobs.stop();
        await engine.stop().catch((err: unknown) => logger.error({ err }, 'trading engine stop failed'));
        await eventsNotifier.close();
        auth.close();
        await sequelize.close();
      })();
      return stopping;
    },
  };
}

if (require.main === module) {
  // start() builds the logger at the configured LOG_LEVEL; signals are logged through it too.
  start(process.env)
    .then((s) => onShutdownSignals(s.logger, [() => s.stop()]))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
