import { randomBytes } from 'node:crypto';
import { ConfigError, createCursorCodec, createLogger, loadConfig, migrate, onShutdownSignals, openDatabase, type Logger } from '@propdesk/kit';
import { authConfigSchema } from './config';
import { createApiKeysRepository } from './data/api-keys';
import { createCreditReservationsRepository } from './data/credit-reservations';
import { createIdempotencyRepository } from './data/idempotency';
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

export interface StartedAuthService {
  port: number;
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedAuthService> {
  const config = loadConfig(authConfigSchema, env, false);
  const logger = options.logger ?? createLogger('auth', { level: config.LOG_LEVEL });
  const sequelize = openDatabase({ url: config.DATABASE_URL, schema: 'auth', logger });
  const apiKeys = createApiKeysRepository(sequelize);
  const hub = new InvalidationHub({
    logger,
    ackTimeoutMs: config.INVALIDATION_ACK_TIMEOUT_MS,
    heartbeatMs: config.INVALIDATION_HEARTBEAT_MS,
    loadFingerprints: () => apiKeys.activeFingerprints(),
  });
  let relay: Awaited<ReturnType<typeof startInvalidationRelay>> | undefined;
  try {
    await migrate(sequelize, 'auth', migrations, logger);
    relay = await startInvalidationRelay({ databaseUrl: config.DATABASE_URL, sequelize, hub, logger });
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
      idempotency: createIdempotencyRepository(sequelize),
      keyUsage: createKeyUsageRecorder(apiKeys, logger),
      hub,
      relay,
      dummyPasswordHash: await hashPassword(randomBytes(24).toString('base64')),
    };
    const server = await createServer(deps, { host: config.GRPC_HOST, port: config.AUTH_GRPC_PORT });

    const maintenance = setInterval(() => {
      Promise.all([
        deps.sessions.purgeExpired(),
        deps.loginAttempts.purgeOlderThan(config.LOGIN_FAILURE_WINDOW_SECONDS),
        deps.idempotency.purgeExpired(),
      ]).catch((err: unknown) => logger.warn({ err }, 'auth maintenance failed'));
    }, config.MAINTENANCE_INTERVAL_SECONDS * 1000);
    maintenance.unref();

    logger.info({ address: server.address }, 'auth service listening');
    let stopping: Promise<void> | undefined;
    const openRelay = relay;
    return {
      port: server.port,
      address: server.address,
      logger,
      stop() {
        stopping ??= (async () => {
          clearInterval(maintenance);
          // watcher streams never end on their own, and the server drain waits for them
          hub.close();
          await server.shutdown();
          await openRelay.close();
          await deps.keyUsage.drain();
          await sequelize.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    hub.close();
    await relay?.close();
    await sequelize.close();
    throw err;
  }
}

if (require.main === module) {
  start(process.env)
    .then((service) => onShutdownSignals(service.logger, [() => service.stop()]))
    .catch((err: unknown) => {
      // a config error names the variable; its stack would only bury that
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(1);
    });
}
