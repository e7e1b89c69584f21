import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createLogger, loadConfig, onShutdownSignals, serviceAddresses, type Logger } from '@propdesk/kit';
import { gatewayConfigSchema, panelUrl } from './config';
import { createClients, createHealthCheckers } from './clients';
import { createApp } from './app';
import { KeyCache } from './auth/key-cache';
import { watchInvalidations } from './auth/invalidation-watcher';
import { createAuthenticator } from './auth/authenticate';
import { createHttpMetrics } from './http/metrics';
import { requestIdOf } from './http/request-context';
import { createGatewayLimits } from './rate-limits';

export interface StartedGateway {
  port: number;
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedGateway> {
  const config = loadConfig(gatewayConfigSchema, env, false);
  const logger = options.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const addresses = serviceAddresses(config);
  const metrics = createHttpMetrics();
  const clients = createClients(addresses, config.GRPC_DEADLINE_MS, metrics.registry);
  const health = createHealthCheckers(addresses);
  const cache = new KeyCache();
  const watcher = watchInvalidations(clients.auth, cache, logger);
  const gatewayLimits = await createGatewayLimits(config, logger, metrics.registry);
  const limits = gatewayLimits.limits;
  const authenticator = createAuthenticator({
    auth: clients.auth,
    cache,
    watcher,
    limits,
    callOpts: (req) => ({ deadlineMs: config.GRPC_DEADLINE_MS, requestId: requestIdOf(req) }),
    executorSessions: async (token, opts) => {
      const session = await clients.accounts.call.getExecutorSession({ token }, opts);
      if (session.account === undefined) throw new Error('executor session without an account');
      return { organizationId: session.account.organizationId, accountNumber: session.account.number, sessionId: session.sessionId };
    },
  });
  const app = createApp({
    clients,
    health,
    authenticator,
    metrics,
    logger,
    panelUrl: panelUrl(config),
    trustProxy: config.TRUST_PROXY,
    deadlineMs: config.GRPC_DEADLINE_MS,
  });

  const server: Server = createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, 'gateway listening');

  let stopping: Promise<void> | undefined;
  return {
    port,
    address: `http://127.0.0.1:${port}`,
    logger,
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 5_000).unref();
        });
        watcher.stop();
        await gatewayLimits.close();
        health.close();
        clients.close();
      })();
      return stopping;
    },
  };
}

if (require.main === module) {
  // start() builds the logger at the configured LOG_LEVEL; signals are logged through it too.
  start(process.env)
    .then((started) => onShutdownSignals(started.logger, [() => started.stop()]))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
