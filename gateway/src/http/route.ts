import express, { type Request, type RequestHandler, type Router } from 'express';
import type { CallOpts, Logger } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import type { authv1 } from '@propdesk/proto';
import type { Authenticator } from '../auth/authenticate';
import { principalOf, isWrite, type Scope } from '../auth/principal';
import { renderError, send, toAppError, type Rendered } from './errors';
import { idempotencyKeyOf, keepRawBody, runIdempotent } from './idempotency';

/** Who may call a route: an API key (with a scope, or none), an executor session, or anyone. */
/** `login` marks the executor login, which has its own stricter per-IP bucket. */
export type Access = { apiKey: Scope | null } | { executor: true } | { anonymous: true; login?: boolean };

export type Handler = (req: Request, opts: CallOpts) => Promise<Rendered>;

export type Method = 'get' | 'post' | 'put' | 'delete';

export interface RouteDeps {
  authenticator: Authenticator;
  auth: ServiceClient<authv1.AuthServiceClient>;
  logger: Logger;
  callOpts: (req: Request) => CallOpts;
}

export type DefineRoute = (method: Method, path: string, access: Access, handler: Handler) => void;

/**
 * Every /v1 route is the same pipeline: authenticate (limits, scope) -> parse the JSON body
 * (1 MB) -> run the handler, through the idempotency store for API-key writes with a key.
 * Handlers return the answer already serialised, so it is encoded once and replayable byte for byte.
 */
export function routeDefiner(router: Router, deps: RouteDeps): DefineRoute {
  const parseJson = express.json({ limit: '1mb', type: () => true, verify: (req, _res, buf) => keepRawBody(req as Request, buf) });
  // Most requests (GET) carry no body: skip the parser's stream machinery for them entirely.
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

  return (method, path, access, handler) => {
    const run: RequestHandler = async (req, res) => {
      const opts = deps.callOpts(req);
      const execute = () => handler(req, opts).catch((err: unknown) => renderError(toAppError(err, deps.logger)));
      const principal = principalOf(req);
      let rendered: Rendered;
      if (principal?.kind === 'api_key' && isWrite(req.method)) {
        const key = idempotencyKeyOf(req);
        rendered = key === undefined ? await execute() : await runIdempotent(deps.auth, deps.logger, req, principal.keyId, key, opts, execute);
      } else {
        rendered = await execute();
      }
      send(res, rendered);
    };
    router[method](path, authenticate(access), jsonBody, run);
  };
}
