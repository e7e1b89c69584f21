import type { RequestHandler } from 'express';
import { annotateServerSpan, ATTR_REQUEST_ID, newRequestId, REQUEST_ID_METADATA, tracingActive } from '@propdesk/kit';

const requestIds = new WeakMap<object, string>();

export function requestIdOf(req: object): string {
  return requestIds.get(req) ?? newRequestId();
}

function acceptedRequestId(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length === 0 || header.length > 128) return undefined;
  return /^[\x21-\x7e]+$/.test(header) ? header : undefined;
}

/**
 * x-request-id: accepted from the client (<= 128 printable chars) or generated; echoed, logged and
 * forwarded explicitly with every gRPC call (CallOpts.requestId). No AsyncLocalStorage here: on
 * Node 20 it turns on promise hooks for every await of every request.
 */
export const requestContext: RequestHandler = (req, res, next) => {
  const requestId = acceptedRequestId(req.headers[REQUEST_ID_METADATA]) ?? newRequestId();
  requestIds.set(req, requestId);
  res.setHeader('X-Request-Id', requestId);
  if (tracingActive()) annotateServerSpan({ [ATTR_REQUEST_ID]: requestId });
  next();
};
