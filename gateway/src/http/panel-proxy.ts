import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { AppError, injectTraceContext, withTraceContext, type Logger } from '@propdesk/kit';
import { traceContextOf } from './request-context';
import { renderError } from './errors';

/**
 * /panel and /api-keys go to the panel as they are (pathFilter keeps the mount path). Mounted
 * before any body parser, or proxied POST bodies would be consumed and hang.
 */
export function panelProxy(target: string, logger: Logger): RequestHandler {
  const proxy = createProxyMiddleware({
    target,
    pathFilter: ['/panel', '/api-keys'],
    xfwd: true,
    changeOrigin: false,
    proxyTimeout: 30_000,
    on: {
      // The proxy sends after awaits of its own, where the gateway keeps no trace context: the panel
      // is told the request's, and its server span joins the request's trace.
      proxyReq: (proxyReq, req) => injectTraceContext(traceContextOf(req), (name, value) => proxyReq.setHeader(name, value)),
      error: (err, req, res) => {
        withTraceContext(traceContextOf(req), () => logger.warn({ err: err.message }, 'panel proxy error'));
        const response = res as ServerResponse;
        if (typeof response.writeHead !== 'function' || response.headersSent) {
          response.destroy?.();
          return;
        }
        const rendered = renderError(new AppError('unavailable', 'the panel is unavailable, try again'));
        response.writeHead(rendered.status, { 'Content-Type': 'application/json; charset=utf-8' });
        response.end(rendered.body);
      },
    },
  }) as RequestHandler;
  // A plain prefix test first: /v1 traffic should not pay for the proxy's own matching.
  return (req, res, next) => {
    const path = req.path;
    if (path.startsWith('/panel') || path.startsWith('/api-keys')) return proxy(req, res, next);
    next();
  };
}
