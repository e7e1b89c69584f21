import express, { type Express, type Request } from 'express';
import type { CallOpts, Logger } from '@propdesk/kit';
import type { Clients, HealthCheckers } from './clients';
import type { Authenticator } from './auth/authenticate';
import { accessLog } from './http/access-log';
import { errorHandler, notFoundHandler } from './http/errors';
import type { HttpMetrics } from './http/metrics';
import { panelProxy } from './http/panel-proxy';
import { requestContext, requestIdOf } from './http/request-context';
import { routeDefiner } from './http/route';
import { registerAccountRoutes } from './routes/accounts';
import { registerEventRoutes } from './routes/events';
import { registerExecutorRoutes } from './routes/executor';
import { registerHealthRoutes } from './routes/health';
import { registerOpenApiRoute } from './routes/openapi';
import { registerTraderRoutes } from './routes/traders';
import { registerTradingRoutes } from './routes/trading';
import { registerWebhookRoutes } from './routes/webhooks';

export interface AppDeps {
  clients: Clients;
  health: HealthCheckers;
  authenticator: Authenticator;
  metrics: HttpMetrics;
  logger: Logger;
  panelUrl: string;
  trustProxy: boolean | number | string;
  deadlineMs: number;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.set('etag', false);

  app.use(requestContext);
  app.use(deps.metrics.middleware);
  app.use(accessLog(deps.logger));
  app.use(panelProxy(deps.panelUrl, deps.logger));

  const callOpts = (req: Request): CallOpts => ({ deadlineMs: deps.deadlineMs, requestId: requestIdOf(req) });
  registerHealthRoutes(app, deps.health, deps.metrics);

  const router = express.Router();
  const define = routeDefiner(router, { authenticator: deps.authenticator, auth: deps.clients.auth, logger: deps.logger, callOpts });
  registerOpenApiRoute(define);
  registerExecutorRoutes(define, deps.clients);
  registerAccountRoutes(define, deps.clients);
  registerTradingRoutes(define, deps.clients);
  registerTraderRoutes(define, deps.clients);
  registerEventRoutes(define, deps.clients);
  registerWebhookRoutes(define, deps.clients);
  app.use(router);

  app.use(notFoundHandler((req, res) => deps.authenticator.anonymous(req, res, false)));
  app.use(errorHandler(deps.logger));
  return app;
}
