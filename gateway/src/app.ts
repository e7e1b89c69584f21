import express, { type Express, type Request } from 'express';
import type { CallOpts, Logger } from '@propdesk/kit';
import type { Clients, HealthCheckers } from './clients';
import type { Authenticator } from './auth/authenticate';
import { accessLog } from './http/access-log';
import { errorHandler, notFoundHandler } from './http/errors';
import type { HttpMetrics } from './http/metrics';
import { panelProxy } from './http/panel-proxy';
import { requestCallOpts, requestContext } from './http/request-context';
import { actorOpts } from './auth/principal';
import { v1Pipeline } from './http/pipeline';
import { registerHealthRoutes } from './routes/health';
import { ROUTES } from './routes';

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

  // After authentication the request's principal is known: every service call then says who it acts for.
  const callOpts = (req: Request): CallOpts => ({ ...requestCallOpts(req, deps.deadlineMs), ...actorOpts(req) });
  registerHealthRoutes(app, deps.health, deps.metrics);

  app.use(v1Pipeline(ROUTES, { authenticator: deps.authenticator, clients: deps.clients, logger: deps.logger, callOpts }));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
