import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { matchedRouteOf } from './matched-route';

export interface HttpMetrics {
  registry: Registry;
  middleware: RequestHandler;
}

/** A registry per gateway instance, so two instances in one process (tests) do not collide. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'propdesk_gateway_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'propdesk_gateway_request_duration_seconds',
    help: 'HTTP request latency, by route template',
    labelNames: ['method', 'route'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      // The route template, not the raw path: raw paths would make one series per account number.
      const routePath: unknown = matchedRouteOf(req) ?? req.route?.path;
      const route = typeof routePath === 'string' ? routePath : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
      latency.observe({ method: req.method, route }, seconds);
    });
    next();
  };
  return { registry, middleware };
}
