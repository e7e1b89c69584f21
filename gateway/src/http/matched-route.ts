import type { Request } from 'express';

const templates = new WeakMap<Request, string>();

/** The /v1 pipeline records the route template it matched (metrics label by template, not by raw path). */
export function setMatchedRoute(req: Request, template: string): void {
  templates.set(req, template);
}

export function matchedRouteOf(req: Request): string | undefined {
  return templates.get(req);
}
