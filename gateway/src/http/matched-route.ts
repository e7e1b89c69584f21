import type { Request } from 'express';
import { setHttpRoute } from '@propdesk/kit';
import { traceContextOf } from './request-context';

const templates = new WeakMap<Request, string>();

/**
 * The /v1 pipeline records the route template it matched: metrics are labelled by template, not
 * by raw path, and the request's server span is named after it ("PUT /v1/accounts/{number}/trader").
 */
export function setMatchedRoute(req: Request, template: string): void {
  templates.set(req, template);
  setHttpRoute(req.method, template, traceContextOf(req));
}

export function matchedRouteOf(req: Request): string | undefined {
  return templates.get(req);
}
