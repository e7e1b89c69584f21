import express, { type Request, type RequestHandler, type Router } from 'express';
import type { ApiErrorCode, CallOpts, Logger } from '@propdesk/kit';
import type { Clients } from '../clients';
import type { Authenticator } from '../auth/authenticate';
import { principalOf, isWrite, type Scope } from '../auth/principal';
import { renderError, send, toAppError, type Rendered } from './errors';
import { idempotencyKeyOf, keepRawBody, runIdempotent } from './idempotency';
import { parseBody, parsePath, parseQuery, queryOf, type FieldShape, type ParsedFields } from './validation';
import type { z } from './zod';

/**
 * Who may call a route: an API key (with a scope, or none), an executor session, or anyone.
 * `login` marks the executor login, which has its own stricter per-IP bucket.
 */
export type Access = { apiKey: Scope | null } | { executor: true } | { anonymous: true; login?: boolean };

export type Method = 'get' | 'post' | 'put' | 'delete';

/** What a handler gets: the request, its parsed path, query and body, the service clients. */
export interface RouteCall<P extends FieldShape, Q extends FieldShape, B extends z.ZodTypeAny> {
  req: Request;
  params: ParsedFields<P>;
  query: ParsedFields<Q>;
  body: z.output<B>;
  clients: Clients;
  opts: CallOpts;
}

/**
 * One /v1 operation, its contract written once: the pipeline validates with these schemas and
 * the OpenAPI document is generated from them (openapi/document.ts).
 */
export interface RouteSpec<P extends FieldShape, Q extends FieldShape, B extends z.ZodTypeAny> {
  method: Method;
  /** OpenAPI path template: /v1/accounts/{number}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be left out entirely. */
  bodyOptional?: boolean;
  /** Success statuses and their body schemas. */
  responses: Partial<Record<200 | 201 | 202, z.ZodTypeAny>>;
  /**
   * The API codes the service calls of the handler can answer (the pipeline adds its own:
   * authentication, limits, validation, idempotency, internal_error; see route-errors.ts).
   */
  errors: readonly ApiErrorCode[];
  handler: (call: RouteCall<P, Q, B>) => Promise<Rendered>;
}

/** A route with its types erased: what the router mounts and the document describes. */
export interface Route {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  params: FieldShape;
  query: FieldShape;
  body?: z.ZodTypeAny;
  bodyOptional: boolean;
  responses: Partial<Record<200 | 201 | 202, z.ZodTypeAny>>;
  errors: readonly ApiErrorCode[];
  run(req: Request, clients: Clients, opts: CallOpts): Promise<Rendered>;
}

const NO_FIELDS: FieldShape = {};

export function route<P extends FieldShape = Record<never, never>, Q extends FieldShape = Record<never, never>, B extends z.ZodTypeAny = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
): Route {
  const { handler, params, query, body, ...meta } = spec;
  return {
    ...meta,
    params: params ?? NO_FIELDS,
    query: query ?? NO_FIELDS,
    body,
    bodyOptional: spec.bodyOptional === true,
    // Path, then query, then body: the first problem found is the answer.
    async run(req, clients, opts) {
      const parsedParams = parsePath(params ?? ({} as P), req.params);
      const parsedQuery = query === undefined ? ({} as ParsedFields<Q>) : parseQuery(query, queryOf(req));
      const parsedBody = (body === undefined ? undefined : parseBody(body, req.body)) as z.output<B>;
      return handler({ req, params: parsedParams, query: parsedQuery, body: parsedBody, clients, opts });
    },
  };
}

/** Express's form of an OpenAPI path template: {number} -> :number. */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

export interface RouteDeps {
  authenticator: Authenticator;
  clients: Clients;
  logger: Logger;
  callOpts: (req: Request) => CallOpts;
}

/**
 * Every /v1 route is the same pipeline: authenticate (limits, scope) -> parse the JSON body of a
 * write (1 MB) -> validate and run the handler, through the idempotency store for API-key writes
 * with a key. Handlers return the answer already serialised, so it is encoded once and
 * replayable byte for byte. A GET's body has no meaning (RFC 9110) and is never read.
 */
export function mountRoutes(router: Router, routes: readonly Route[], deps: RouteDeps): void {
  const parseJson = express.json({ limit: '1mb', type: () => true, verify: (req, _res, buf) => keepRawBody(req as Request, buf) });
  // Writes without a body (archive, close, ...) skip the parser's stream machinery entirely.
  const jsonBody: RequestHandler = (req, res, next) => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      next();
      return;
    }
    parseJson(req, res, next);
  };
  const authenticate = (access: Access): RequestHandler => async (req, res, next) => {
    if ('apiKey' in access) await deps.authenticator.apiKey(req, res, access.apiKey);
    else if ('executor' in access) await deps.authenticator.executor(req, res);
    else await deps.authenticator.anonymous(req, res, access.login === true);
    next();
  };

  for (const r of routes) {
    const run: RequestHandler = async (req, res) => {
      const opts = deps.callOpts(req);
      const execute = () => r.run(req, deps.clients, opts).catch((err: unknown) => renderError(toAppError(err, deps.logger)));
      const principal = principalOf(req);
      let rendered: Rendered;
      if (principal?.kind === 'api_key' && isWrite(req.method)) {
        const key = idempotencyKeyOf(req);
        rendered = key === undefined ? await execute() : await runIdempotent(deps.clients.auth, deps.logger, req, principal.keyId, key, opts, execute);
      } else {
        rendered = await execute();
      }
      send(res, rendered);
    };
    const handlers = r.method === 'get' ? [authenticate(r.access), run] : [authenticate(r.access), jsonBody, run];
    router[r.method](expressPath(r.path), ...handlers);
  }
}
