// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import { randomBytes } from 'node:crypto';
import { auditRetention, createCursorCodec, createLogger, loadConfig, migrate, openDatabase, poolSize, ResourceStack, runMain, startMetricsServer, startRetention, watchDatabase, type Logger, type StartedProcess } from '@propdesk/kit';
import { authConfigSchema } from './config';
import { createApiKeysRepository } from './data/api-keys';
import { createCreditReservationsRepository } from './data/credit-reservations';
import { createKeyUsageRecorder } from './data/key-usage';
import { createLoginAttemptsRepository } from './data/login-attempts';
import { migrations } from './data/migrations';
import { createOrganizationsRepository } from './data/organizations';
import { createSessionsRepository } from './data/sessions';
import { createUsersRepository } from './data/users';
import type { AuthDeps } from './deps';
import { hashPassword } from './domain/password';
import { InvalidationHub } from './invalidation/hub';
import { startInvalidationRelay } from './invalidation/relay';
import { createServer } from './server';

export type StartedAuthService = StartedProcess;

/** Composition root: config, database, resources (invalidation hub and relay, maintenance), server. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedAuthService> {
  const config = loadConfig(authConfigSchema, env, false);
  const logger = options.logger ?? createLogger('auth', { level: config.LOG_LEVEL });
  const resources = new ResourceStack(logger);
  return resources.build(async () => {
    const metrics =
      config.AUTH_METRICS_PORT === undefined
        ? undefined
        : await resources.start('metrics', () => startMetricsServer({ host: config.GRPC_HOST, port: config.AUTH_METRICS_PORT!, service: 'auth', logger }), (m) => m.close());
    const sequelize = resources.add('database', openDatabase({ url: config.DATABASE_URL, schema: 'auth', logger, poolMax: poolSize(10, config.DATABASE_POOL_MAX) }), (db) => db.close());
    if (metrics) watchDatabase(metrics.registry, sequelize);
    await migrate(sequelize, 'auth', migrations, logger);

    const apiKeys = createApiKeysRepository(sequelize);
    const hub = resources.add(
      'invalidation hub',
      new InvalidationHub({
        logger,
        ackTimeoutMs: config.INVALIDATION_ACK_TIMEOUT_MS,
        heartbeatMs: config.INVALIDATION_HEARTBEAT_MS,
        loadFingerprints: () => apiKeys.activeFingerprints(),
      }),
      (h) => h.close(),
    );
    const relay = await resources.start(
      'invalidation relay',
      () => startInvalidationRelay({ databaseUrl: config.DATABASE_URL, sequelize, hub, logger }),
      (r) => r.close(),
    );
    const keyUsage = resources.add('key usage recorder', createKeyUsageRecorder(apiKeys, logger), (k) => k.drain());
    const deps: AuthDeps = {
      config,
      logger,
      sequelize,
      cursors: createCursorCodec(config.CURSOR_SECRET),
      organizations: createOrganizationsRepository(sequelize),
      reservations: createCreditReservationsRepository(sequelize),
      users: createUsersRepository(sequelize),
      sessions: createSessionsRepository(sequelize),
      loginAttempts: createLoginAttemptsRepository(sequelize),
      apiKeys,
      keyUsage,
      hub,
      relay,
      dummyPasswordHash: await hashPassword(randomBytes(24).toString('base64')),
    };

    const maintenance = setInterval(() => {
      deps.loginAttempts.purgeOlderThan(config.LOGIN_FAILURE_WINDOW_SECONDS).catch((err: unknown) => logger.warn({ err }, 'auth maintenance failed'));
    }, config.MAINTENANCE_INTERVAL_SECONDS * 1000);
    maintenance.unref();
    resources.onStop('maintenance timer', () => clearInterval(maintenance));
    // Scheduled retention; other modules register their tasks on the same scheduler.
    const retention = resources.add('retention', startRetention({ logger, intervalMs: config.RETENTION_INTERVAL_MS }), (r) => r.stop());
    retention.register({ name: 'panel sessions', horizonMs: config.SESSIONS_RETENTION, run: (cutoff) => deps.sessions.purgeEndedBefore(cutoff) });
    retention.register(auditRetention(sequelize, config.AUDIT_RETENTION));

    const server = await resources.start(
      'gRPC server',
      () => createServer(deps, { host: config.GRPC_HOST, port: config.AUTH_GRPC_PORT, metrics: metrics?.registry }),
      async (s) => {
        // watcher streams never end on their own, and the server drain waits for them
        hub.close();
        await s.shutdown();
      },
    );
    logger.info({ address: server.address }, 'auth service listening');
    return { port: server.port, address: server.address, logger, retention, stop: () => resources.stop() };
  });
}

if (require.main === module) runMain(start);
