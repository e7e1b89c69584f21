import { componentSchemas, ref } from './schemas';

type Schema = Record<string, unknown>;
type Access = { scope: string | null } | 'executor' | 'public';

interface OperationSpec {
  summary: string;
  access: Access;
  path?: string[];
  query?: Record<string, Schema>;
  body?: string;
  /** The body may be left out entirely. */
  bodyOptional?: boolean;
  /** status -> component schema name */
  ok: Record<number, string>;
}

const ERROR_STATUSES: Record<number, string> = {
  400: 'invalid_request or invalid_cursor (param names the field)',
  401: 'unauthorized, invalid_api_key, invalid_credentials or invalid_session',
  402: 'payment_required or insufficient_credits',
  403: 'missing_scope (names the scope) or forbidden',
  404: 'not_found (also for other organizations\' objects)',
  409: 'conflict, account_archived, account_breached, account_passed, no_unassigned_accounts, idempotency_key_reused',
  413: 'payload_too_large (body over 1 MB)',
  422: 'order_rejected (names the rule)',
  429: 'rate_limited (with Retry-After)',
  500: 'internal_error',
  503: 'unavailable (a service is down or missed its deadline)',
};

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

const json = (schema: Schema) => ({ 'application/json': { schema } });

const PATH_PARAMS: Record<string, Schema> = {
  number: { type: 'integer', minimum: 1, description: 'account number' },
  id: { type: 'string' },
  delivery_id: { type: 'string' },
};

const paging = {
  limit: { type: 'integer', minimum: 1, default: 50, description: 'values above 200 are clamped to 200' },
  cursor: { type: 'string', description: 'opaque next_cursor of the previous page' },
};

function operation(spec: OperationSpec, write: boolean): Schema {
  const parameters: Schema[] = [];
  for (const name of spec.path ?? []) parameters.push({ name, in: 'path', required: true, schema: PATH_PARAMS[name] });
  for (const [name, schema] of Object.entries(spec.query ?? {})) parameters.push({ name, in: 'query', required: false, schema });
  if (write && typeof spec.access === 'object') {
    parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
  }
  const responses: Record<string, Schema> = {};
  for (const [status, name] of Object.entries(spec.ok)) {
    responses[status] = { description: spec.summary, headers: rateLimitHeaders, content: json(ref(name)) };
  }
  for (const [status, description] of Object.entries(ERROR_STATUSES)) {
    responses[status] = { description, headers: rateLimitHeaders, content: json(ref('Error')) };
  }
  const security =
    spec.access === 'public' ? [] : spec.access === 'executor' ? [{ executorSession: [] }] : [{ apiKey: spec.access.scope ? [spec.access.scope] : [] }];
  const scopeNote = typeof spec.access === 'object' && spec.access.scope ? ` Scope: \`${spec.access.scope}\`.` : '';
  return {
    summary: spec.summary,
    description: `${spec.summary}.${scopeNote}`,
    security,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body ? { requestBody: { required: spec.bodyOptional !== true, content: json(ref(spec.body)) } } : {}),
    responses,
  };
}

const read = { scope: 'accounts:read' };
const write = { scope: 'accounts:write' };
const trade = { scope: 'trading:write' };
const creds = { scope: 'credentials:read' };

const ops: Record<string, Partial<Record<'get' | 'post' | 'put' | 'delete', OperationSpec>>> = {
  '/v1/accounts': {
    get: {
      summary: 'List accounts',
      access: read,
      query: { ...paging, status: { enum: ['active', 'passed', 'breached', 'archived'] }, assigned: { enum: ['true', 'false'] }, trader_id: { type: 'string' } },
      ok: { 200: 'AccountPage' },
    },
    post: { summary: 'Provision 1-100 accounts, one credit each', access: write, body: 'CreateAccountsRequest', ok: { 201: 'AccountList' } },
  },
  '/v1/accounts/claim': {
    post: { summary: 'Assign the next unassigned account', access: write, body: 'TraderRequest', ok: { 200: 'Assignment' } },
  },
  '/v1/accounts/{number}': { get: { summary: 'One account', access: read, path: ['number'], ok: { 200: 'Account' } } },
  '/v1/accounts/{number}/report': { get: { summary: 'The full report', access: read, path: ['number'], ok: { 200: 'Report' } } },
  '/v1/accounts/{number}/trader': {
    put: { summary: 'Create the trader if new and assign', access: write, path: ['number'], body: 'TraderRequest', ok: { 200: 'Assignment' } },
    delete: { summary: 'Unassign', access: write, path: ['number'], ok: { 200: 'Unassignment' } },
  },
  '/v1/accounts/{number}/archive': { post: { summary: 'Take out of circulation', access: write, path: ['number'], ok: { 200: 'Account' } } },
  '/v1/accounts/{number}/trades': { get: { summary: 'Deals', access: read, path: ['number'], query: paging, ok: { 200: 'DealPage' } } },
  '/v1/accounts/{number}/positions': {
    get: {
      summary: 'Positions',
      access: read,
      path: ['number'],
      query: { ...paging, status: { enum: ['pending', 'open', 'closed', 'cancelled'] } },
      ok: { 200: 'PositionPage' },
    },
    post: { summary: 'Place an order (market, limit or stop)', access: trade, path: ['number'], body: 'OrderRequest', ok: { 201: 'Position' } },
  },
  '/v1/accounts/{number}/positions/{id}/close': {
    post: { summary: 'Close a position', access: trade, path: ['number', 'id'], ok: { 200: 'Position' } },
  },
  '/v1/accounts/{number}/breach': { post: { summary: 'Force a manual breach', access: trade, path: ['number'], body: 'BreachRequest', ok: { 200: 'Account' } } },
  '/v1/accounts/{number}/flags': { get: { summary: 'Rule flags and breaches', access: read, path: ['number'], query: paging, ok: { 200: 'FlagPage' } } },
  '/v1/accounts/{number}/analytics': { get: { summary: 'Indicators', access: read, path: ['number'], ok: { 200: 'Analytics' } } },
  '/v1/accounts/{number}/equity': {
    get: { summary: 'Equity curve points', access: read, path: ['number'], query: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } }, ok: { 200: 'EquityCurve' } },
  },
  '/v1/accounts/{number}/credentials': { get: { summary: 'Executor credentials', access: creds, path: ['number'], ok: { 200: 'Credentials' } } },
  '/v1/accounts/{number}/credentials/rotate': {
    post: { summary: 'New executor password; revokes live sessions', access: creds, path: ['number'], ok: { 200: 'Credentials' } },
  },
  '/v1/executor/sessions': {
    post: { summary: 'Log in with account number and executor password', access: 'public', body: 'ExecutorSessionRequest', ok: { 201: 'ExecutorSession' } },
  },
  '/v1/executor/account': { get: { summary: "The session's account", access: 'executor', ok: { 200: 'Account' } } },
  '/v1/executor/positions': {
    get: { summary: "The session account's positions", access: 'executor', query: { ...paging, status: { enum: ['pending', 'open', 'closed', 'cancelled'] } }, ok: { 200: 'PositionPage' } },
    post: { summary: 'Place an order on the session account', access: 'executor', body: 'OrderRequest', ok: { 201: 'Position' } },
  },
  '/v1/executor/positions/{id}/close': { post: { summary: 'Close a position of the session account', access: 'executor', path: ['id'], ok: { 200: 'Position' } } },
  '/v1/traders': {
    get: { summary: 'List traders', access: read, query: paging, ok: { 200: 'TraderPage' } },
    post: { summary: 'Create a trader (200 when it already existed)', access: write, body: 'TraderRequest', ok: { 200: 'Trader', 201: 'Trader' } },
  },
  '/v1/traders/{id}': { get: { summary: 'One trader', access: read, path: ['id'], ok: { 200: 'Trader' } } },
  '/v1/events': { get: { summary: 'The event feed', access: read, query: { ...paging, type: { type: 'string' } }, ok: { 200: 'EventPage' } } },
  '/v1/webhooks': {
    get: { summary: 'List webhook endpoints', access: read, query: paging, ok: { 200: 'WebhookPage' } },
    post: { summary: 'Register an HTTPS endpoint (secret shown once)', access: write, body: 'WebhookRequest', ok: { 201: 'WebhookWithSecret' } },
  },
  '/v1/webhooks/{id}': { delete: { summary: 'Delete an endpoint', access: write, path: ['id'], ok: { 200: 'WebhookDeleted' } } },
  '/v1/webhooks/{id}/enable': {
    post: { summary: 'Re-enable a disabled endpoint (and optionally ask for missed events again)', access: write, path: ['id'], body: 'EnableWebhookRequest', bodyOptional: true, ok: { 200: 'Webhook' } },
  },
  '/v1/webhooks/{id}/deliveries': {
    get: {
      summary: 'Delivery records',
      access: read,
      path: ['id'],
      query: { ...paging, status: { enum: ['pending', 'succeeded', 'failed'] }, event_type: { type: 'string' } },
      ok: { 200: 'DeliveryPage' },
    },
  },
  '/v1/webhooks/{id}/test': { post: { summary: 'Send a signed sample event', access: write, path: ['id'], ok: { 202: 'DeliveryAccepted' } } },
  '/v1/webhooks/{id}/deliveries/{delivery_id}/retry': {
    post: { summary: 'Redeliver one delivery', access: write, path: ['id', 'delivery_id'], ok: { 202: 'DeliveryAccepted' } },
  },
  '/v1/openapi.json': { get: { summary: 'This document', access: 'public', ok: {} } },
};

function buildPaths(): Record<string, Schema> {
  const paths: Record<string, Schema> = {};
  for (const [path, methods] of Object.entries(ops)) {
    const item: Schema = {};
    for (const [method, spec] of Object.entries(methods)) if (spec) item[method] = operation(spec, method !== 'get');
    paths[path] = item;
  }
  const openapi = paths['/v1/openapi.json'] as Record<string, Record<string, Record<string, unknown>>>;
  openapi.get.responses['200'] = { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } } };
  paths['/healthz'] = {
    get: {
      summary: 'Health of the gateway and every service',
      security: [],
      responses: { 200: { description: 'every service serving', content: json(ref('Health')) }, 503: { description: 'a service is not serving', content: json(ref('Error')) } },
    },
  };
  paths['/api-keys/{id}/revoke'] = {
    post: {
      summary: 'Revoke an API key (panel session of an owner or admin)',
      security: [{ panelSession: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: { description: 'the revoked key (revoking again keeps the first revoked_at)', content: json(ref('RevokedKey')) },
        401: { description: 'unauthorized: no panel session', content: json(ref('Error')) },
        403: { description: 'forbidden: a member session', content: json(ref('Error')) },
        404: { description: 'not_found: no such key in this organization', content: json(ref('Error')) },
        503: { description: 'unavailable', content: json(ref('Error')) },
      },
    },
  };
  return paths;
}

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'PropDesk API',
    version: '1.0.0',
    description: 'Simulated trading accounts for prop-trading firms. Errors are always {"error":{"code","message"(,"param")}}.',
  },
  servers: [{ url: '/' }],
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  security: [{ apiKey: [] }],
  paths: buildPaths(),
  components: {
    schemas: componentSchemas,
    headers: {
      RateLimitLimit: { description: 'size of the bucket this request used, per window', schema: { type: 'integer' } },
      RateLimitRemaining: { description: 'requests left in the window', schema: { type: 'integer' } },
      RateLimitReset: { description: 'seconds until the window resets', schema: { type: 'integer' } },
    },
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'API key pfx_live_...; scopes accounts:read, accounts:write, credentials:read, trading:write' },
      executorSession: { type: 'http', scheme: 'bearer', description: 'executor session token pfx_exec_...' },
      panelSession: { type: 'apiKey', in: 'cookie', name: 'pd_session' },
    },
  },
} as const;
