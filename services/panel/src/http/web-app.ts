import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, Router } from 'express';
import { AppError } from '@propdesk/kit';
import { sendError } from './errors';

/**
 * The built front end (services/panel/web, built by `npm run build:panel` into dist/web; `npm
 * start` and `npm test` build it first). Resolved from src/ (ts-jest) and from dist/ alike.
 */
export const WEB_DIR = path.resolve(__dirname, '..', '..', 'dist', 'web');

/** Under /panel, everything but the JSON API and the assets is a page of the single-page app. */
function isPagePath(p: string): boolean {
  if (p !== '/panel' && !p.startsWith('/panel/')) return false;
  return !(p === '/panel/api' || p.startsWith('/panel/api/') || p.startsWith('/panel/assets/'));
}

/**
 * Assets are content-hashed, so they are cached for good; every page URL (a reload, a pasted link)
 * answers index.html, never cached, and the client's router shows the page of the URL.
 */
export function webApp(webDir = WEB_DIR): Router {
  const router = Router();
  router.use(
    '/panel/assets',
    express.static(path.join(webDir, 'assets'), { index: false, redirect: false, immutable: true, maxAge: '365d', fallthrough: true }),
  );
  const indexFile = path.join(webDir, 'index.html');
  const page: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isPagePath(req.path)) return next();
    if (!fs.existsSync(indexFile)) {
      sendError(res, new AppError('unavailable', 'the panel pages are not built: run `npm run build:panel`'));
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.sendFile(indexFile);
  };
  router.use(page);
  return router;
}
