import type { Request } from 'express';
import type { ApiErrorCode, CallOpts } from '@propdesk/kit';
import type { Clients } from '../clients';
import type { Scope } from '../auth/principal';
import type { ApiTag } from '../openapi/tags';
import type { Rendered } from './errors';
import { parseBody, parsePath, parseQuery, queryOf, type FieldShape, type ParsedFields } from './validation';
import type { z } from './zod';

/**
 * Who may call a route: an API key (with a scope, or none), an executor session, or anyone.
 * `login` marks the executor login, which has its own stricter per-IP bucket. `testMode`: a test
 * key only (SPEC 13, test clocks); a live key is forbidden before the request is read.
 */
export type Access = { apiKey: Scope | null; testMode?: true } | { executor: true } | { anonymous: true; login?: boolean };

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

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
  tag: ApiTag;
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
  tag: ApiTag;
  access: Access;
  params: FieldShape;
  query: FieldShape;
  body?: z.ZodTypeAny;
  bodyOptional: boolean;
  responses: Partial<Record<200 | 201 | 202, z.ZodTypeAny>>;
  errors: readonly ApiErrorCode[];
  /** `params`: the path's parameters, percent-decoded, by name. */
  run(req: Request, params: Record<string, string>, clients: Clients, opts: CallOpts): Promise<Rendered>;
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
    async run(req, pathParams, clients, opts) {
      const parsedParams = parsePath(params ?? ({} as P), pathParams);
      const parsedQuery = query === undefined ? ({} as ParsedFields<Q>) : parseQuery(query, queryOf(req));
      const parsedBody = (body === undefined ? undefined : parseBody(body, req.body)) as z.output<B>;
      return handler({ req, params: parsedParams, query: parsedQuery, body: parsedBody, clients, opts });
    },
  };
}
