import type { RequestHandler } from 'express';
import { newRequestId, runWithContext, type Logger } from '@propdesk/kit';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Request id (the gateway's, when it sent one) for logs and forwarded gRPC metadata, one log
 * line per request (path only: no query, headers or bodies, which may carry secrets).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      runWithContext({ requestId }, () =>
        logger.info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request'),
      );
    });
    runWithContext({ requestId }, () => next());
  };
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  if (!req.path.startsWith('/panel/assets/')) res.setHeader('Cache-Control', 'no-store');
  next();
};
