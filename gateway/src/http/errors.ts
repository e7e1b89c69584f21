import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, withTraceContext, type Logger } from '@propdesk/kit';
import { traceContextOf } from './request-context';

/** A rendered answer: status and the exact bytes of the JSON body (serialised once). */
export interface Rendered {
  status: number;
  body: string | Buffer;
}

export function renderJson(status: number, value: unknown): Rendered {
  return { status, body: JSON.stringify(value) };
}

export function renderError(err: AppError): Rendered {
  return { status: err.httpStatus, body: JSON.stringify(err.toJSON()) };
}

export function send(res: Response, rendered: Rendered): void {
  res.status(rendered.status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(rendered.body);
}

interface BodyParserError {
  type?: string;
  status?: number;
}

function bodyParserError(err: unknown): BodyParserError | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err)) return undefined;
  return err as BodyParserError;
}

/**
 * Anything thrown anywhere becomes an AppError; unknown failures become a generic internal_error,
 * logged in the trace of `req` (the request it failed, when there is one).
 */
export function toAppError(err: unknown, logger: Logger, req?: object): AppError {
  if (err instanceof AppError) return err;
  const parserError = bodyParserError(err);
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'the request body is not valid JSON', 'body');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'the request body is larger than 1 MB');
    case 'encoding.unsupported':
      return new AppError('unsupported_media_type', 'unsupported Content-Encoding of the request body', 'Content-Encoding');
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'a JSON request body must be UTF-8', 'Content-Type');
    case 'request.aborted':
      return new AppError('invalid_request', 'the request was aborted', 'body');
    default:
      break;
  }
  // http-errors raised by Express itself (e.g. a path with broken percent-encoding) are client errors.
  const status = typeof err === 'object' && err !== null && 'status' in err ? Number((err as { status: unknown }).status) : NaN;
  if (status === 404) return new AppError('not_found', 'no such route');
  if (status >= 400 && status < 500) return new AppError('invalid_request', 'the request is malformed');
  withTraceContext(req && traceContextOf(req), () => logger.error({ err }, 'unexpected error'));
  return new AppError('internal_error', 'internal error');
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    send(res, renderError(toAppError(err, logger, req)));
  };
}

const NOT_FOUND = renderError(new AppError('not_found', 'no such route'));

/** Unknown routes outside /v1 (the /v1 pipeline answers its own) are 404 for any method. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  send(res, NOT_FOUND);
};
