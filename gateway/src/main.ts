// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import { createLogger, loadConfig, ResourceStack, runMain, serviceAddresses, startHttpServer, type Logger, type StartedProcess } from '@propdesk/kit';
import { gatewayConfigSchema, panelUrl } from './config';
import { createClients, createHealthCheckers } from './clients';
import { createApp } from './app';
import { messageClassesOf } from './http/express-messages';
import { KeyCache } from './auth/key-cache';
import { watchInvalidations } from './auth/invalidation-watcher';
import { createAuthenticator } from './auth/authenticate';
import { createHttpMetrics } from './http/metrics';
import { requestCallOpts } from './http/request-context';
import { createGatewayLimits } from './rate-limits';

export type StartedGateway = StartedProcess;

/** Composition root: config, resources (clients, health checks, limits, key cache feed), server. No database. */
export async function start(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): Promise<StartedGateway> {
  const config = loadConfig(gatewayConfigSchema, env, false);
  const logger = options.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const resources = new ResourceStack(logger);
  return resources.build(async () => {
    const addresses = serviceAddresses(config);
    const metrics = createHttpMetrics();
    const clients = resources.add('service clients', createClients(addresses, config.GRPC_DEADLINE_MS, metrics.registry), (c) => c.close());
    const health = resources.add('health checkers', createHealthCheckers(addresses), (h) => h.close());
    const gatewayLimits = await resources.start('rate limits', () => createGatewayLimits(config, logger, metrics.registry), (l) => l.close());
    const cache = new KeyCache();
    const watcher = resources.add('invalidation watcher', watchInvalidations(clients.auth, cache, logger), (w) => w.stop());
    const authenticator = createAuthenticator({
      auth: clients.auth,
      cache,
      watcher,
      limits: gatewayLimits.limits,
      callOpts: (req) => requestCallOpts(req, config.GRPC_DEADLINE_MS),
      executorSessions: async (token, opts) => {
        const session = await clients.accounts.call.getExecutorSession({ token }, opts);
        if (session.account === undefined) throw new Error('executor session without an account');
        return { organizationId: session.account.organizationId, livemode: session.account.livemode, accountNumber: session.account.number, sessionId: session.sessionId };
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

    const http = await resources.start('HTTP server', () => startHttpServer(app, { host: '0.0.0.0', port: config.PORT, messages: messageClassesOf(app) }), (s) => s.close());
    logger.info({ port: http.port }, 'gateway listening');
    return { port: http.port, address: `http://127.0.0.1:${http.port}`, logger, stop: () => resources.stop() };
  });
}

if (require.main === module) runMain(start);
