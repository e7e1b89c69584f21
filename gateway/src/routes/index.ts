import { renderJson, type Rendered } from '../http/errors';
import { route, type Route } from '../http/route';
import { z } from '../http/zod';
import { buildOpenApiDocument } from '../openapi/document';
import { accountRoutes } from './accounts';
import { auditRoutes } from './audit';
import { eventRoutes } from './events';
import { executorRoutes } from './executor';
import { lifecycleRoutes } from './lifecycle';
import { operationRoutes } from './operations';
import { payoutRoutes } from './payouts';
import { programRoutes } from './programs';
import { rulePackRoutes } from './rule-pack';
import { traderRoutes } from './traders';
import { tradingRoutes } from './trading';
import { testClockRoutes } from './test-clocks';
import { webhookRoutes } from './webhooks';

const documentSchema = z
  .object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }).passthrough(), paths: z.record(z.string(), z.unknown()) })
  .passthrough()
  .openapi('OpenApiDocument');

const openApiRoute = route({
  method: 'get',
  path: '/v1/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  tag: 'Meta',
  access: { anonymous: true },
  responses: { 200: documentSchema },
  errors: [],
  handler: async () => servedOpenApiDocument(),
});

/** Every /v1 operation, in the order the router tries them (a literal segment before a {param}). */
export const ROUTES: readonly Route[] = [
  openApiRoute,
  ...executorRoutes,
  ...accountRoutes,
  ...programRoutes,
  ...tradingRoutes,
  ...rulePackRoutes,
  ...lifecycleRoutes,
  ...payoutRoutes,
  ...operationRoutes,
  ...traderRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...testClockRoutes,
  ...auditRoutes,
];

let document: ReturnType<typeof buildOpenApiDocument> | undefined;
let served: Rendered | undefined;

/** The OpenAPI document of ROUTES, built once. */
export function openApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  document ??= buildOpenApiDocument(ROUTES);
  return document;
}

/** GET /v1/openapi.json's answer: the document serialised once. */
export function servedOpenApiDocument(): Rendered {
  served ??= renderJson(200, openApiDocument());
  return served;
}
