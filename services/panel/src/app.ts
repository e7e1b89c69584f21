import express, { type Express } from 'express';
import type { Logger } from '@propdesk/kit';
import type { PanelClients } from './clients';
import { csrfGuard } from './http/csrf';
import { errorHandler, notFoundHandler } from './http/errors';
import { requestContext, securityHeaders } from './http/request-context';
import { webApp, WEB_DIR } from './http/web-app';
import { accountRoutes } from './routes/account-routes';
import { auditRoutes } from './routes/audit-routes';
import { eventRoutes } from './routes/event-routes';
import { keyRoutes } from './routes/key-routes';
import { metaRoutes } from './routes/meta-routes';
import { operationRoutes } from './routes/operation-routes';
import { lifecycleRoutes } from './routes/lifecycle-routes';
import { sessionRoutes } from './routes/session-routes';
import { teamRoutes } from './routes/team-routes';
import { tradingRoutes } from './routes/trading-routes';
import { webhookRoutes } from './routes/webhook-routes';

export interface PanelDeps {
  clients: PanelClients;
  logger: Logger;
  /** Express "trust proxy" (PANEL_TRUST_PROXY). */
  trustProxy: boolean | number | string;
  /** The built front end; WEB_DIR unless a test serves another build. */
  webDir?: string;
}

export function createApp({ clients, logger, trustProxy, webDir = WEB_DIR }: PanelDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);

  app.use(requestContext(logger));
  app.use(securityHeaders);
  app.use(webApp(webDir));

  app.use(csrfGuard);
  app.use(express.json({ limit: '64kb' }));
  app.use(metaRoutes());
  app.use(sessionRoutes(clients));
  app.use(keyRoutes(clients));
  app.use(accountRoutes(clients));
  app.use(tradingRoutes(clients));
  app.use(eventRoutes(clients));
  app.use(webhookRoutes(clients));
  app.use(teamRoutes(clients));
  app.use(lifecycleRoutes(clients));
  app.use(operationRoutes(clients));
  app.use(auditRoutes(clients));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
