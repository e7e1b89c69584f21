import path from 'node:path';
import express, { type Express } from 'express';
import type { Logger } from '@propdesk/kit';
import type { PanelClients } from './clients';
import { csrfGuard } from './http/csrf';
import { errorHandler, notFoundHandler } from './http/errors';
import { requestContext, securityHeaders } from './http/request-context';
import { accountRoutes } from './routes/account-routes';
import { keyRoutes } from './routes/key-routes';
import { sessionRoutes } from './routes/session-routes';

export interface PanelDeps {
  clients: PanelClients;
  logger: Logger;
  /** Express "trust proxy" (PANEL_TRUST_PROXY). */
  trustProxy: boolean | number | string;
}

/** Resolved from src/ (ts-jest) and from dist/ alike. */
export const STATIC_DIR = path.resolve(__dirname, '..', 'static');

export function createApp({ clients, logger, trustProxy }: PanelDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);

  app.use(requestContext(logger));
  app.use(securityHeaders);

  app.get(['/panel', '/panel/'], (_req, res) => {
    res.sendFile(path.join(STATIC_DIR, 'index.html'));
  });
  app.use('/panel/static', express.static(STATIC_DIR, { index: false, redirect: false, maxAge: '5m' }));

  app.use(csrfGuard);
  app.use(express.json({ limit: '64kb' }));
  app.use(sessionRoutes(clients));
  app.use(keyRoutes(clients));
  app.use(accountRoutes(clients));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
