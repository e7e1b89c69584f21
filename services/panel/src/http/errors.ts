import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, fromServiceError, type Logger } from '@propdesk/kit';

/** Seconds a client waits after rate_limited when the service did not say (SPEC: at least 1). */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** The auth service states the wait in its message ("... try again in 42 s"); fall back otherwise. */
export function retryAfterSeconds(message: string): number {
  const match = /(\d+)\s*(?:s\b|sec|second)/i.exec(message);
  const seconds = match ? Number(match[1]) : DEFAULT_RETRY_AFTER_SECONDS;
  return Math.max(1, Math.ceil(seconds));
}

export function sendError(res: Response, err: AppError): void {
  if (err.code === 'rate_limited' && !res.getHeader('Retry-After')) {
    res.setHeader('Retry-After', String(retryAfterSeconds(err.message)));
  }
  res.status(err.httpStatus).json(err.toJSON());
}

interface BodyParserError {
  type: string;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type === 'string';
}

function fromBodyParser(err: BodyParserError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'the request body is not valid JSON', 'body');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'the request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
    case 'entity.verify.failed':
      return new AppError('invalid_request', 'the request body could not be read', 'body');
    default:
      return undefined;
  }
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendError(res, new AppError('not_found', 'no such route'));
};

/** Every failure leaves as {error:{code,message}}; no stack traces, no service internals. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const appError = (isBodyParserError(err) && fromBodyParser(err)) || fromServiceError(err);
    if (appError.code === 'internal_error') {
      logger.error({ err, method: req.method, path: req.path }, 'panel request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, appError);
  };
}
