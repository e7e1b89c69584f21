import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_KEY_SCOPES, type ApiErrorCode } from '@propdesk/kit';
import type { Route } from '../http/route';
import { routeErrorsByStatus } from '../http/route-errors';
import { z } from '../http/zod';
import { anyErrorSchema, ERROR_MEANINGS, errorBodySchema } from './errors';
import { registerEventWebhooks } from './event-schemas';
import { withIntegerFormats } from './integer-formats';
import { outsideV1Operations } from './outside-v1';
import { TAGS } from './tags';

/**
 * The OpenAPI 3.1 document of the REST surface, generated from the routes' own schemas
 * (@asteasolutions/zod-to-openapi): one source for validation and documentation.
 */

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

function registerShared(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      'API key pfx_live_... (live mode) or pfx_test_... (test mode: the organization\'s test partition, free, no plan needed; SPEC 13); ' +
      `its scopes: ${API_KEY_SCOPES.join(', ')}`,
  });
  registry.registerComponent('securitySchemes', 'executorSession', { type: 'http', scheme: 'bearer', description: 'executor session token pfx_exec_...' });
  registry.registerComponent('securitySchemes', 'panelSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'pd_session',
    description:
      "the panel's session cookie (HttpOnly, SameSite=Strict), set by POST /panel/api/login for a user of the firm's team; a cross-site request is refused 403 forbidden. Not an API key: a bearer key is not a panel session",
  });
  const integer = { type: 'integer' as const, minimum: 0 };
  registry.registerComponent('headers', 'RateLimit-Limit', { description: 'size of the bucket this request used, per window', schema: integer });
  registry.registerComponent('headers', 'RateLimit-Remaining', { description: 'requests left in the window', schema: integer });
  registry.registerComponent('headers', 'RateLimit-Reset', { description: 'seconds until the window resets', schema: integer });
  registry.register('Error', anyErrorSchema);
  registry.registerComponent('responses', 'Error', {
    description: [
      'Any other answer is the error envelope, with a code of the table.',
      `Among them the answers of no single operation: 404 \`not_found\` for a path that does not exist and 405 \`method_not_allowed\` (${ERROR_MEANINGS.method_not_allowed}), both with the RateLimit-* headers;`,
      `408 \`request_timeout\` and 431 \`headers_too_large\` (${ERROR_MEANINGS.headers_too_large}), which the HTTP server answers before any route, without them.`,
    ].join(' '),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  registry.registerComponent('headers', 'Retry-After', { description: 'seconds to wait before retrying (at least 1)', required: true, schema: { type: 'integer', minimum: 1 } });
}

/**
 * What the document says once for every path (no operation can: these answers belong to no
 * operation).
 */
const API_DESCRIPTION = [
  'Simulated trading accounts for prop-trading firms.',
  'Errors are always {"error":{"code","message"(,"param")}}; each operation lists the codes it can answer, and its `default` answer (components.responses.Error) is the envelope with any code, for the answers below that belong to no operation.',
  'Every /v1 answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset of the bucket the request was counted in: a valid API key\'s own bucket wherever it is sent (also on unknown routes, the public document and the executor login), otherwise the client IP\'s.',
  'A path under /v1 that does not exist is 404 `not_found` for every method, with the RateLimit-* headers.',
  'A method a path does not have is 405 `method_not_allowed` with the RateLimit-* headers and an Allow header listing the path\'s methods (e.g. GET, HEAD, POST). OPTIONS is such a method: the API configures no CORS (it is called from servers, with secret keys), so there is no preflight to answer.',
  'A write that carries a body must send it as Content-Type: application/json (UTF-8); anything else is 415 `unsupported_media_type`. Writes that take no body may be sent without one and without a Content-Type.',
  'The request line and headers may take up to 64 KB (a longer cursor is refused by its list as `invalid_cursor`); beyond that the server answers 431 `headers_too_large`, and a request that does not arrive in time 408 `request_timeout`; these two come from the HTTP server before any route, so they carry no RateLimit-* headers.',
  'Test mode: a pfx_test_ key sees and changes only its organization\'s test objects and a pfx_live_ key only live ones; every object carries `livemode` and the other mode\'s object is 404 `not_found`, in lists, cursors, events and webhooks alike. Test mode needs no plan (no 402) and spends no credits.',
  'Numbers are taken exactly: a value that would need rounding (a volume not a multiple of 0.01 lots, a price finer than its instrument\'s digits, an amount in fractions of a cent) is refused with 400 naming the field, never rounded. Text is stored exactly as sent: control characters are refused, never stripped.',
].join(' ');

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const rateLimitHeaders = () => Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, headerRef(name)]));
const json = (schema: z.ZodTypeAny) => ({ 'application/json': { schema } });

/**
 * What the gateway takes as an Idempotency-Key (http/idempotency.ts): 1 to 255 characters of a
 * header value, where HTTP itself refuses control characters other than the tab. One parameter
 * component, referenced by every write that takes an API key.
 */
const IDEMPOTENCY_KEY_HEADER = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .openapi({
    param: { name: 'Idempotency-Key', in: 'header' },
    pattern: '^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]+$',
    description: 'a retry with the same key and body gets the first answer again (24 hours, per API key)',
  });

/** Every operation's `default`: any answer it does not list is the error envelope (components.responses.Error). */
export const ANY_OTHER_ANSWER = { $ref: '#/components/responses/Error' };

function errorResponse(status: number, codes: ApiErrorCode[]): ResponseConfig {
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code]}`).join('; '),
    headers: status === 429 ? { ...rateLimitHeaders(), 'Retry-After': headerRef('Retry-After') } : rateLimitHeaders(),
    content: json(errorBodySchema(codes)),
  };
}

function security(route: Route): Pick<RouteConfig, 'security'> & { 'x-scope'?: string } {
  const { access } = route;
  if ('apiKey' in access) return { security: [{ apiKey: access.apiKey === null ? [] : [access.apiKey] }], ...(access.apiKey ? { 'x-scope': access.apiKey } : {}) };
  if ('executor' in access) return { security: [{ executorSession: [] }] };
  return { security: [] };
}

function description(route: Route): string {
  const { access } = route;
  const who =
    'apiKey' in access
      ? access.apiKey
        ? `API key with the scope \`${access.apiKey}\`.`
        : 'Any API key.'
      : 'executor' in access
        ? 'Executor session token.'
        : 'No credentials.';
  return [route.description, who].filter(Boolean).join(' ');
}

function operationOf(route: Route, idempotencyKey: z.ZodTypeAny): RouteConfig {
  const isApiKeyWrite = 'apiKey' in route.access && route.method !== 'get';
  const responses: RouteConfig['responses'] = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    if (schema) responses[status] = { description: route.summary, headers: rateLimitHeaders(), content: json(schema) };
  }
  for (const [status, codes] of routeErrorsByStatus(route)) responses[String(status)] = errorResponse(status, codes);
  responses.default = ANY_OTHER_ANSWER;
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: description(route),
    tags: [route.tag],
    ...security(route),
    request: {
      ...(Object.keys(route.params).length > 0 ? { params: z.object(route.params) } : {}),
      ...(Object.keys(route.query).length > 0 ? { query: z.object(route.query) } : {}),
      ...(isApiKeyWrite
        ? {
            headers: z.object({ 'Idempotency-Key': idempotencyKey }),
          }
        : {}),
      ...(route.body ? { body: { required: !route.bodyOptional, content: json(route.body) } } : {}),
    },
    responses,
  };
}

export function buildOpenApiDocument(routes: readonly Route[]) {
  const registry = new OpenAPIRegistry();
  registerShared(registry);
  const idempotencyKey = registry.registerParameter('IdempotencyKey', IDEMPOTENCY_KEY_HEADER);
  for (const route of routes) registry.registerPath(operationOf(route, idempotencyKey));
  for (const operation of outsideV1Operations()) registry.registerPath(operation);
  registerEventWebhooks(registry);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PropDesk API',
      version: '1.0.0',
      contact: { name: 'PropDesk' },
      description: API_DESCRIPTION,
    },
    servers: [{ url: '/', 'x-internal': false }],
    tags: TAGS,
  });
  // The generator always writes parameters; empty, they say nothing.
  const rest = document;
  if (rest.components?.parameters && Object.keys(rest.components.parameters).length === 0) delete rest.components.parameters;
  return withIntegerFormats({ ...rest, jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema' });
}
