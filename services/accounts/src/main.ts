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
import { migrations } from './data/migrations';
import type { AccountsDeps } from './deps';
import { promised } from './grpc/typed';
import { createServer } from './server';
import { startBackgroundJobs } from './use-cases/background-jobs';

export const SCHEMA = 'accounts';

export interface StartedAccountsService {
  port: number;
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

/** Composition root: config, database and migrations, wiring, gRPC server, background jobs. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedAccountsService> {
  const config = loadConfig(accountsConfigSchema, env, false);
  const logger = options.logger ?? createLogger('accounts', { level: config.LOG_LEVEL });
  const sequelize = openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, logger, poolMax: 20 });
  const stopSteps: Array<() => Promise<void> | void> = [];
  try {
    await migrate(sequelize, SCHEMA, migrations, logger);
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
    auth,
    authApi: promised(auth),
    eventsNotifier,
    onStop: (step) => stopSteps.push(step),
  };

  let server;
  try {
    server = await createServer(deps, { host: config.GRPC_HOST, port: config.ACCOUNTS_GRPC_PORT });
  } catch (err) {
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
        for (const step of stopSteps.splice(0)) {
          try {
            await step();
          } catch (err) {
            logger.error({ err }, 'accounts stop step failed');
          }
        }
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
