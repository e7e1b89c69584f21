import type { Clients } from '../clients';
import type { DefineRoute } from '../http/route';
import { registerAccountRoutes } from '../routes/accounts';
import { registerEventRoutes } from '../routes/events';
import { registerExecutorRoutes } from '../routes/executor';
import { registerOpenApiRoute } from '../routes/openapi';
import { registerTraderRoutes } from '../routes/traders';
import { registerTradingRoutes } from '../routes/trading';
import { registerWebhookRoutes } from '../routes/webhooks';
import { openApiDocument } from './document';

function registeredRoutes(): string[] {
  const routes: string[] = [];
  const define: DefineRoute = (method, path) => {
    routes.push(`${method} ${path.replace(/:deliveryId/g, '{delivery_id}').replace(/:(\w+)/g, '{$1}')}`);
  };
  const clients = {} as Clients;
  registerOpenApiRoute(define);
  registerExecutorRoutes(define, clients);
  registerAccountRoutes(define, clients);
  registerTradingRoutes(define, clients);
  registerTraderRoutes(define, clients);
  registerEventRoutes(define, clients);
  registerWebhookRoutes(define, clients);
  return routes.sort();
}

function documentedV1Routes(): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(openApiDocument.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const method of Object.keys(item)) routes.push(`${method} ${path}`);
  }
  return routes.sort();
}

describe('the OpenAPI document', () => {
  it('documents exactly the /v1 routes the gateway serves', () => {
    expect(documentedV1Routes()).toEqual(registeredRoutes());
  });

  it('documents an error answer for every operation', () => {
    for (const [path, item] of Object.entries(openApiDocument.paths) as Array<[string, Record<string, { responses: Record<string, unknown> }>]>) {
      for (const [method, operation] of Object.entries(item)) {
        const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
        expect({ route: `${method} ${path}`, hasErrors: errors.length > 0 }).toEqual({ route: `${method} ${path}`, hasErrors: true });
      }
    }
  });

  it('is OpenAPI 3.1 with resolvable schema references', () => {
    expect(openApiDocument.openapi).toBe('3.1.0');
    const text = JSON.stringify(openApiDocument);
    for (const match of text.matchAll(/"#\/components\/(schemas|headers)\/(\w+)"/g)) {
      const [, kind, name] = match;
      expect(Object.keys(openApiDocument.components[kind as 'schemas' | 'headers'])).toContain(name);
    }
  });
});
