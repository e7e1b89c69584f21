import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { API_ERRORS, EVENT_TYPES, createLogger, type ApiErrorCode } from '@propdesk/kit';
import { eventDataJsonSchemas } from './event-schemas';
import type { Authenticator } from '../auth/authenticate';
import type { Clients } from '../clients';
import { v1Pipeline } from '../http/pipeline';
import { ROUTES } from '../routes';

/**
 * The document as GET /v1/openapi.json serves it: the real routes behind the real /v1 pipeline,
 * asked over HTTP. Authentication lets everyone through and no service answers, so a documented
 * operation the pipeline serves answers anything but its own 404 (no such path) or 405.
 */
async function served(): Promise<{ text: string; unserved: string[] }> {
  const allowAll: Authenticator = {
    apiKey: async () => ({ kind: 'api_key', keyId: 'k', keyPrefix: 'pfx_live_k', organizationId: 'o', livemode: true }),
    executor: async () => ({ kind: 'executor', organizationId: 'o', livemode: true, accountNumber: '1', sessionId: 's' }),
    anonymous: async () => undefined,
  };
  const app = express().use(
    v1Pipeline(ROUTES, { authenticator: allowAll, clients: {} as Clients, logger: createLogger('test', { level: 'silent' }), callOpts: () => ({}) }),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const res = await fetch(`${base}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const unserved: string[] = [];
    for (const [path, item] of Object.entries((JSON.parse(text) as { paths: Record<string, object> }).paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const method of Object.keys(item)) {
        const answer = await fetch(`${base}${path.replace(/\{\w+\}/g, '1')}`, { method: method.toUpperCase() });
        const code = ((await answer.json()) as { error?: { code?: string } }).error?.code;
        if (code === 'not_found' && answer.status === 404 && path.split('{').length === 1) unserved.push(`${method} ${path}`);
        if (answer.status === 405) unserved.push(`${method} ${path}`);
      }
    }
    return { text, unserved };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
}
interface Response {
  headers?: Record<string, { $ref: string }>;
  content?: { 'application/json': { schema: Schema } };
}
interface Parameter {
  name: string;
  in: string;
  schema: Schema;
}
interface Operation {
  operationId: string;
  security: Array<Record<string, string[]>>;
  'x-scope'?: string;
  parameters?: Parameter[];
  responses: Record<string, Response>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { operationId: string; requestBody: { content: { 'application/json': { schema: Schema } } } } }>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { type: string; in?: string; scheme?: string }> };
}

let doc: Document;
let text: string;
let unserved: string[];
beforeAll(async () => {
  ({ text, unserved } = await served());
  doc = JSON.parse(text) as Document;
});

const operations = (filter: (path: string) => boolean = (path) => path.startsWith('/v1/')) =>
  Object.entries(doc.paths)
    .filter(([path]) => filter(path))
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ route: `${method} ${path}`, method, path, op })));

const resolve = (schema: Schema): Schema => (schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);

/** The codes an operation documents, by status: what the error schemas' code enums allow. */
function documentedErrors(op: Operation): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [status, response] of Object.entries(op.responses)) {
    if (status === 'default' || Number(status) < 400) continue;
    const schema = response.content?.['application/json'].schema ?? {};
    const variants = schema.anyOf ?? [schema];
    errors[status] = variants.flatMap((v) => (resolve(v).properties?.error.properties?.code.enum ?? []) as string[]);
  }
  return errors;
}

describe('the served OpenAPI document', () => {
  it('passes a strict OpenAPI 3.1 validator (@seriousme/openapi-schema-validator)', () => {
    // The validator is an ES module; jest runs CommonJS, so it runs in its own node process.
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const chunks = [];
      for await (const chunk of process.stdin) chunks.push(chunk);
      const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString()));
      process.stdout.write(JSON.stringify({ valid: result.valid, version: new Validator().version, errors: result.errors ?? null }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: text, cwd: __dirname, encoding: 'utf8' });
    const result = JSON.parse(out) as { valid: boolean; errors: unknown };
    expect(result.errors).toBeNull();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents exactly the /v1 operations the pipeline serves', () => {
    const documented = operations().map((o) => o.route).sort();
    expect(documented).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    expect(unserved).toEqual([]);
    expect(documented.length).toBeGreaterThan(30);
  });

  it('names every operation once, with its scope in the security requirement and in x-scope', () => {
    const ids = operations(() => true).map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    const listAccounts = doc.paths['/v1/accounts'].get;
    expect(listAccounts.security).toEqual([{ apiKey: ['accounts:read'] }]);
    expect(listAccounts['x-scope']).toBe('accounts:read');
    expect(doc.paths['/v1/accounts/{number}/credentials/rotate'].post['x-scope']).toBe('credentials:read');
    expect(doc.paths['/v1/accounts/{number}/positions'].post.security).toEqual([{ apiKey: ['trading:write'] }]);
    expect(doc.paths['/v1/executor/positions'].post.security).toEqual([{ executorSession: [] }]);
    expect(doc.paths['/v1/openapi.json'].get.security).toEqual([]);
    for (const { route, op } of operations()) {
      const scopes = op.security.flatMap((requirement) => requirement.apiKey ?? []);
      expect({ route, scope: op['x-scope'] }).toEqual({ route, scope: scopes[0] });
    }
  });

  it('names a declared scheme in every security requirement: a cookie for the panel routes, bearer for the rest', () => {
    const schemes = doc.components.securitySchemes;
    for (const { route, op } of operations(() => true)) {
      for (const requirement of op.security) for (const name of Object.keys(requirement)) expect({ route, declared: name in schemes }).toEqual({ route, declared: true });
    }
    for (const path of ['/api-keys/{id}/revoke', '/api-keys/{id}/roll']) expect(doc.paths[path].post.security).toEqual([{ panelSession: [] }]);
    expect(schemes.panelSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('bounds what a client sends: limit at most 200, path numbers, every integer with its width', () => {
    for (const { route, op } of operations()) {
      for (const parameter of op.parameters ?? []) {
        const schema = parameter.schema as Schema & { maximum?: number; minimum?: number };
        if (parameter.name === 'limit') expect({ route, maximum: schema.maximum }).toEqual({ route, maximum: 200 });
        if (parameter.in === 'path' && schema.type === 'integer') expect({ route, min: schema.minimum, max: schema.maximum }).toEqual({ route, min: 1, max: Number.MAX_SAFE_INTEGER });
      }
    }
    const widths = new Set<string>();
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node !== null && typeof node === 'object') {
        const schema = node as { type?: unknown; format?: string };
        if (schema.type === 'integer') widths.add(schema.format ?? 'none');
        Object.values(node).forEach(visit);
      }
    };
    visit(doc);
    expect([...widths].sort()).toEqual(['int32', 'int64']);
    expect(doc.paths['/v1/accounts'].get.parameters?.find((p) => p.name === 'limit')?.schema).toMatchObject({ format: 'int32' });
    expect(doc.paths['/v1/accounts/{number}'].get.parameters?.find((p) => p.name === 'number')?.schema).toMatchObject({ format: 'int64' });
  });

  it('declares the RateLimit-* headers on every /v1 answer and Retry-After on every 429', () => {
    for (const { route, op } of operations()) {
      // Any other answer is the shared envelope, whose description says which carry the headers.
      expect({ route, default: op.responses.default }).toEqual({ route, default: { $ref: '#/components/responses/Error' } });
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === 'default') continue;
        const headers = Object.keys(response.headers ?? {}).sort();
        const expected = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...(status === '429' ? ['Retry-After'] : [])].sort();
        expect({ route, status, headers }).toEqual({ route, status, headers: expected });
      }
    }
  });

  it('lists each error status with codes of that status only, from the kit table', () => {
    for (const { route, op } of operations(() => true)) {
      for (const [status, codes] of Object.entries(documentedErrors(op))) {
        expect(codes.length).toBeGreaterThan(0);
        for (const code of codes) expect({ route, code, status: API_ERRORS[code as ApiErrorCode] }).toEqual({ route, code, status: Number(status) });
      }
    }
  });

  it('lists no body errors, no credit or order errors on GETs, and payment_required only where an API key is taken', () => {
    for (const { route, method, op } of operations()) {
      const codes = Object.values(documentedErrors(op)).flat();
      if (method === 'get') {
        expect({ route, codes: codes.filter((c) => ['payload_too_large', 'order_rejected', 'insufficient_credits', 'idempotency_key_reused'].includes(c)) }).toEqual({ route, codes: [] });
      }
      const takesApiKey = op.security.some((requirement) => 'apiKey' in requirement);
      expect({ route, payment: codes.includes('payment_required') }).toEqual({ route, payment: takesApiKey });
    }
  });

  // Written from SPEC sections 4-7 and the services' use cases, not from the route table: a
  // change to what a route declares, or to how the pipeline's own errors are derived, fails here.
  it.each([
    [
      'get /v1/accounts/{number}',
      {
        400: ['invalid_request'],
        401: ['unauthorized', 'invalid_api_key'],
        402: ['payment_required'],
        403: ['missing_scope'],
        404: ['not_found'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    [
      'post /v1/accounts/{number}/positions',
      {
        400: ['invalid_request'],
        401: ['unauthorized', 'invalid_api_key'],
        402: ['payment_required'],
        403: ['missing_scope'],
        404: ['not_found'],
        409: ['conflict', 'account_archived', 'account_breached', 'account_passed', 'idempotency_key_reused'],
        413: ['payload_too_large'],
        415: ['unsupported_media_type'],
        422: ['order_rejected'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    [
      'post /v1/accounts',
      {
        400: ['invalid_request'],
        401: ['unauthorized', 'invalid_api_key'],
        402: ['payment_required', 'insufficient_credits'],
        403: ['missing_scope', 'forbidden'],
        409: ['conflict', 'idempotency_key_reused'],
        413: ['payload_too_large'],
        415: ['unsupported_media_type'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    [
      'get /v1/events',
      {
        400: ['invalid_request', 'invalid_cursor'],
        401: ['unauthorized', 'invalid_api_key'],
        402: ['payment_required'],
        403: ['missing_scope'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    [
      'post /v1/executor/sessions',
      {
        400: ['invalid_request'],
        401: ['invalid_credentials'],
        409: ['account_archived', 'account_breached'],
        413: ['payload_too_large'],
        415: ['unsupported_media_type'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    [
      'get /v1/executor/positions',
      {
        400: ['invalid_request', 'invalid_cursor'],
        401: ['unauthorized', 'invalid_session'],
        429: ['rate_limited'],
        500: ['internal_error'],
        503: ['unavailable'],
      },
    ],
    ['get /v1/openapi.json', { 429: ['rate_limited'], 500: ['internal_error'] }],
  ])('%s documents exactly the errors it can answer', (route, expected) => {
    const [method, path] = route.split(' ');
    const errors = documentedErrors(doc.paths[path][method]);
    const sorted = (table: Record<string, string[]>) => Object.fromEntries(Object.entries(table).map(([status, codes]) => [status, [...codes].sort()]));
    expect(sorted(errors)).toEqual(sorted(expected));
  });

  it('types the type and event_type filters as the event-type enum', () => {
    const filter = (path: string, name: string) => doc.paths[path].get.parameters?.find((p) => p.name === name)?.schema.enum;
    expect(filter('/v1/events', 'type')).toEqual([...EVENT_TYPES]);
    expect(filter('/v1/webhooks/{id}/deliveries', 'event_type')).toEqual([...EVENT_TYPES]);
    expect(resolve(doc.components.schemas.Event).properties?.type.enum).toEqual([...EVENT_TYPES]);
  });

  it('describes each event type’s delivery in webhooks: the feed’s envelope with the type’s data from the event catalog', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    const catalog = eventDataJsonSchemas();
    for (const type of EVENT_TYPES) {
      const envelope = resolve(doc.webhooks[type].post.requestBody.content['application/json'].schema);
      expect(envelope.properties?.type.enum).toEqual([type]);
      expect(Object.keys(envelope.properties ?? {})).toEqual(Object.keys(resolve(doc.components.schemas.Event).properties ?? {}));
      const { $schema: _dialect, title: _title, ...data } = catalog[type];
      expect(Object.keys(envelope.properties?.data.properties ?? {})).toEqual(Object.keys(data.properties as object));
      expect(envelope.properties?.data.additionalProperties).toBe(false);
    }
  });

  it('describes every response object fully: properties, and nothing beyond them', () => {
    const loose: string[] = [];
    const visit = (schema: Schema, where: string): void => {
      if (schema.$ref) return;
      if (schema.properties) {
        if (schema.additionalProperties !== false) loose.push(where);
        for (const [name, property] of Object.entries(schema.properties)) visit(property, `${where}.${name}`);
      } else if (schema.type === 'object' && schema.additionalProperties === undefined) {
        loose.push(where);
      }
      if (schema.items) visit(schema.items, `${where}[]`);
      schema.anyOf?.forEach((v, i) => visit(v, `${where}|${i}`));
    };
    const requests = new Set(Object.keys(doc.components.schemas).filter((name) => name.endsWith('Request')));
    for (const [name, schema] of Object.entries(doc.components.schemas)) if (!requests.has(name) && name !== 'OpenApiDocument') visit(schema, name);
    expect(loose).toEqual([]);
    // allOf with additionalProperties false in each part refuses every field of the others.
    expect(text).not.toContain('"allOf"');
    for (const name of ['Analytics', 'Report']) {
      expect(Object.keys(doc.components.schemas[name].properties ?? {}).length).toBeGreaterThan(5);
    }
  });
});
