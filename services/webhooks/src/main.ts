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
import { accountsv1 } from '@propdesk/proto';
import { configSchema } from './config';
import { createDeliveriesRepository, DELIVERIES_CHANNEL } from './data/deliveries-repository';
import { createDispatchRepository } from './data/dispatch-repository';
import { createEndpointsRepository } from './data/endpoints-repository';
import { createEventsRepository } from './data/events-repository';
import { migrations } from './data/migrations';
import { startDispatcher } from './delivery/dispatcher';
import { startEventConsumer } from './delivery/event-consumer';
import { createHttpSender } from './delivery/http-sender';
import { startNotifyListener } from './delivery/notify-listener';
import type { Deps } from './deps';
import { createServer } from './server';

export const SCHEMA = 'webhooks';

export interface StartedWebhooks {
  port: number;
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedWebhooks> {
  const config = loadConfig(configSchema, env, false);
  const logger = options.logger ?? createLogger('webhooks', { level: config.LOG_LEVEL });
  const db = openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, logger, poolMax: Math.min(20, 4 + Math.ceil(config.WEBHOOK_CONCURRENCY / 8)) });
  const opened: Array<() => Promise<void>> = [() => db.close()];
  const closeAll = async () => {
    for (const close of opened.reverse()) await close().catch((err: unknown) => logger.error({ err }, 'close failed'));
  };
  try {
    await migrate(db, SCHEMA, migrations, logger);
    const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY);
    const deps: Deps = {
      db,
      endpoints: createEndpointsRepository(db),
      deliveries: createDeliveriesRepository(db),
      secrets,
      cursors: createCursorCodec(config.CURSOR_SECRET),
      logger,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      retryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
    };

    const sender = createHttpSender({
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      caFile: config.WEBHOOK_CA_FILE,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    });
    opened.push(() => sender.close());
    const dispatcher = startDispatcher({
      repository: createDispatchRepository(db),
      sender,
      secrets,
      logger,
      concurrency: config.WEBHOOK_CONCURRENCY,
      perEndpointConcurrency: config.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
      retryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      disableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    });
    opened.push(() => dispatcher.stop());
    const listener = startNotifyListener({ databaseUrl: config.DATABASE_URL, channel: DELIVERIES_CHANNEL, onNotify: dispatcher.wake, logger });
    opened.push(() => listener.stop());

    const accounts = createServiceClient(
      accountsv1.AccountsServiceClient,
      accountsv1.AccountsServiceService,
      serviceAddresses(config).accounts,
      config.GRPC_DEADLINE_MS,
    );
    opened.push(async () => accounts.close());
    const consumer = startEventConsumer({ databaseUrl: config.DATABASE_URL, accounts, events: createEventsRepository(db), logger });
    opened.push(() => consumer.stop());

    const server = await createServer(deps, { host: config.GRPC_HOST, port: config.WEBHOOKS_GRPC_PORT, logger });
    logger.info({ port: server.port }, 'webhooks service listening');
    let stopping: Promise<void> | undefined;
    return {
      port: server.port,
      address: server.address,
      logger,
      stop() {
        stopping ??= (async () => {
          await server.shutdown();
          await closeAll();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

if (require.main === module) {
  // start() builds the logger at the configured LOG_LEVEL; signals are logged through it too.
  start(process.env)
    .then((s) => onShutdownSignals(s.logger, [() => s.stop()]))
    .catch((err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
