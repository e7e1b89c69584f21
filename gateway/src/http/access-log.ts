import type { RequestHandler } from 'express';
import { withTraceContext, type Logger } from '@propdesk/kit';
import { requestIdOf, traceContextOf } from './request-context';

/**
 * One line per answered request: id, method, path (never the query string, body or headers),
 * status and duration. Written on 'finish' with the shared logger: no child logger per request,
 * which is what made a general-purpose HTTP logger cost more than the route itself. Written in
 * the request's trace context (the gateway keeps none across events): it carries its trace_id
 * and span_id.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const path = req.originalUrl.split('?', 1)[0];
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { requestId: requestIdOf(req), method: req.method, path, status, ms: Math.round(ms * 100) / 100 };
      withTraceContext(traceContextOf(req), () => logger[level](line, 'request'));
    });
    next();
  };
}
