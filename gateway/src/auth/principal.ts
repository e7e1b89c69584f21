import type { Request } from 'express';
import { annotateServerSpan, API_KEY_SCOPES, AppError, ATTR_ORGANIZATION_ID, scopeFields, tracingActive, type ApiKeyScope, type ScopeFields, type TenantScope } from '@propdesk/kit';

/** SPEC 4 and 14: the kit's one list (the auth service validates keys against the same). */
export const SCOPES = API_KEY_SCOPES;
export type Scope = ApiKeyScope;

/** A key acts on its organization's partition of its own mode (SPEC 13): the scope is part of the principal. */
export interface ApiKeyPrincipal extends TenantScope {
  kind: 'api_key';
  keyId: string;
}

/** An executor session acts on its account's organization and mode. */
export interface ExecutorPrincipal extends TenantScope {
  kind: 'executor';
  /** int64 string, as the contracts carry it. */
  accountNumber: string;
  sessionId: string;
}

export type Principal = ApiKeyPrincipal | ExecutorPrincipal;

const principals = new WeakMap<Request, Principal>();

export function setPrincipal(req: Request, principal: Principal): void {
  principals.set(req, principal);
  if (tracingActive()) annotateServerSpan({ [ATTR_ORGANIZATION_ID]: principal.organizationId });
}

export function principalOf(req: Request): Principal | undefined {
  return principals.get(req);
}

export function apiKeyOf(req: Request): ApiKeyPrincipal {
  const principal = principals.get(req);
  if (principal?.kind !== 'api_key') throw new AppError('unauthorized', 'an API key is required');
  return principal;
}

/**
 * The API key's organization and mode as the contracts carry them, spread into every
 * organization-scoped request: the mode travels exactly as the organization does.
 */
export function tenantOf(req: Request): ScopeFields {
  return scopeFields(apiKeyOf(req));
}

export function executorOf(req: Request): ExecutorPrincipal {
  const principal = principals.get(req);
  if (principal?.kind !== 'executor') throw new AppError('invalid_session', 'the executor session is not valid');
  return principal;
}

/** Client address as Express computes it under the configured trust proxy. */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}
