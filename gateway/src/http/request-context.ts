import type { RequestHandler } from 'express';
import { annotateServerSpan, ATTR_REQUEST_ID, captureTraceContext, newRequestId, REQUEST_ID_METADATA, tracingActive, type CallOpts, type TraceContext } from '@propdesk/kit';

const requestIds = new WeakMap<object, string>();
const traceContexts = new WeakMap<object, TraceContext>();

export function requestIdOf(req: object): string {
  return requestIds.get(req) ?? newRequestId();
}

/**
 * The request's trace context (its HTTP server span's), taken as the request arrives; undefined
 * with tracing off. The gateway keeps no async context (telemetry.ts): whatever may start a span
 * or write a log line after an await enters this one (withTraceContext, CallOpts.traceContext).
 */
export function traceContextOf(req: object): TraceContext | undefined {
  return tracingActive() ? traceContexts.get(req) : undefined;
}

/** What every service call made for the request carries: its deadline, its request id and its trace context. */
export function requestCallOpts(req: object, deadlineMs: number): CallOpts {
  return { deadlineMs, requestId: requestIdOf(req), traceContext: traceContextOf(req) };
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
  if (tracingActive()) {
    // The first middleware, run within the emit of 'request' that the HTTP instrumentation wraps
    // in the server span's context: that context is the active one here.
    const traced = captureTraceContext();
    if (traced) traceContexts.set(req, traced);
    annotateServerSpan({ [ATTR_REQUEST_ID]: requestId }, traced);
  }
  next();
};
