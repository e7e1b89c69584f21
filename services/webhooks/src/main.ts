// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import {
  poolSize,
  createCursorCodec,
  createLogger,
  createSecretBox,
  createServiceClient,
  listenToChannel,
  loadConfig,
  migrate,
  openDatabase,
  ResourceStack,
  auditRetention,
  idempotencyRecordsRetention,
  runMain,
  startMetricsServer,
  startRetention,
  serviceAddresses,
  watchDatabase,
  type Logger,
  type StartedProcess,
} from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { configSchema } from './config';
import { createDeliveriesRepository, DELIVERIES_CHANNEL } from './data/deliveries-repository';
import { createDispatchRepository } from './data/dispatch-repository';
import { createEndpointsRepository } from './data/endpoints-repository';
import { createEventsRepository } from './data/events-repository';
import { createOutboxRepository } from './data/outbox-repository';
import { migrations } from './data/migrations';
import { startDispatcher } from './delivery/dispatcher';
import { startEventConsumer } from './delivery/event-consumer';
import { createHttpSender } from './delivery/http-sender';
import { startOutboxForwarder } from './delivery/outbox-forwarder';
import { createWebhookMetrics } from './delivery/metrics';
import type { Deps } from './deps';
import { registerWebhooksRetention } from './data/retention';
import { createServer } from './server';

export const SCHEMA = 'webhooks';

export type StartedWebhooks = StartedProcess;

/** Composition root: config, database, resources (sender, dispatcher, listener, event consumer), server. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedWebhooks> {
  const config = loadConfig(configSchema, env, false);
  const logger = options.logger ?? createLogger('webhooks', { level: config.LOG_LEVEL });
  const resources = new ResourceStack(logger);
  return resources.build(async () => {
    const metricsServer =
      config.WEBHOOKS_METRICS_PORT === undefined
        ? undefined
        : await resources.start('metrics', () => startMetricsServer({ host: config.GRPC_HOST, port: config.WEBHOOKS_METRICS_PORT!, service: 'webhooks', logger }), (m) => m.close());
    const poolMax = poolSize(Math.min(20, 4 + Math.ceil(config.WEBHOOK_CONCURRENCY / 8)), config.DATABASE_POOL_MAX);
    const db = resources.add('database', openDatabase({ url: config.DATABASE_URL, schema: SCHEMA, logger, poolMax }), (d) => d.close());
    await migrate(db, SCHEMA, migrations, logger);
    if (metricsServer) watchDatabase(metricsServer.registry, db);
    const metrics = metricsServer ? createWebhookMetrics(metricsServer.registry, db) : undefined;
    const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY);

    const sender = resources.add(
      'HTTP sender',
      createHttpSender({ allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, caFile: config.WEBHOOK_CA_FILE, timeoutMs: config.WEBHOOK_TIMEOUT_MS }),
      (s) => s.close(),
    );
    const accounts = resources.add(
      'accounts client',
      createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, serviceAddresses(config).accounts, config.GRPC_DEADLINE_MS, serviceAddresses(config).tls),
      (c) => c.close(),
    );
    // The service's own events (webhook_endpoint.disabled) go to the accounts outbox, which the
    // feed and the fan-out read (data/outbox-repository.ts says why).
    const outbox = createOutboxRepository(db);
    const forwarder = resources.add(
      'outbox forwarder',
      startOutboxForwarder({ outbox, accounts, logger, pollIntervalMs: Math.max(config.WEBHOOK_POLL_INTERVAL_MS, 1000) }),
      (f) => f.stop(),
    );
    const dispatcher = resources.add(
      'dispatcher',
      startDispatcher({
        repository: createDispatchRepository(db, outbox),
        sender,
        secrets,
        logger,
        concurrency: config.WEBHOOK_CONCURRENCY,
        perEndpointConcurrency: config.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
        retryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        disableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        metrics,
        onDisabled: forwarder.wake,
      }),
      (d) => d.stop(),
    );
    // The dispatcher also polls, so a notification missed while reconnecting costs one poll interval.
    resources.add(
      'deliveries listener',
      listenToChannel({
        databaseUrl: config.DATABASE_URL,
        channel: DELIVERIES_CHANNEL,
        applicationName: 'propdesk-webhooks-listen',
        logger,
        onNotification: dispatcher.wake,
        // anything committed while nobody listened is picked up now
        onListening: dispatcher.wake,
      }),
      (l) => l.close(),
    );

    resources.add(
      'event consumer',
      startEventConsumer({ databaseUrl: config.DATABASE_URL, accounts, events: createEventsRepository(db), logger, metrics }),
      (c) => c.stop(),
    );

    const retention = resources.add('retention', startRetention({ logger, intervalMs: config.RETENTION_INTERVAL_MS }), (r) => r.stop());
    registerWebhooksRetention(retention, db, { deliveriesMs: config.WEBHOOK_DELIVERIES_RETENTION, eventsMs: config.WEBHOOK_EVENTS_RETENTION });
    retention.register(idempotencyRecordsRetention(db, config.IDEMPOTENCY_RECORDS_RETENTION));
    retention.register(auditRetention(db, config.AUDIT_RETENTION));

    const deps: Deps = {
      db,
      endpoints: createEndpointsRepository(db),
      deliveries: createDeliveriesRepository(db),
      secrets,
      cursors: createCursorCodec(config.CURSOR_SECRET),
      logger,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      egressPorts: config.WEBHOOK_EGRESS_PORTS,
      retryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
      clock: () => new Date(),
    };
    const server = await resources.start(
      'gRPC server',
      () =>
        createServer(deps, {
          host: config.GRPC_HOST,
          port: config.WEBHOOKS_GRPC_PORT,
          logger,
          tls: serviceAddresses(config).tls,
          plaintextHealthPort: config.GRPC_TLS_HEALTH_PORT,
          metrics: metricsServer?.registry,
        }),
      (s) => s.shutdown(),
    );
    logger.info({ port: server.port }, 'webhooks service listening');
    return { port: server.port, address: server.address, logger, retention, stop: () => resources.stop() };
  });
}

if (require.main === module) runMain(start);
