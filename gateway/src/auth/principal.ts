import type { Request } from 'express';
import { annotateServerSpan, API_KEY_SCOPES, AppError, ATTR_ORGANIZATION_ID, scopeFields, tracingActive, type Actor, type ApiKeyScope, type CallOpts, type ScopeFields, type TenantScope } from '@propdesk/kit';
import { traceContextOf } from '../http/request-context';

/** The scopes of SPEC 4 and 14, listed once in the kit. */
export const SCOPES = API_KEY_SCOPES;
export type Scope = ApiKeyScope;

/** A key acts on its organization's partition of its own mode (SPEC 13): the scope is part of the principal. */
export interface ApiKeyPrincipal extends TenantScope {
  kind: 'api_key';
  keyId: string;
  /** The key's display prefix (its first 17 characters): how the audit log names it. */
  keyPrefix: string;
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
  if (tracingActive()) annotateServerSpan({ [ATTR_ORGANIZATION_ID]: principal.organizationId }, traceContextOf(req));
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

/** A route of test mode only (SPEC 13, test clocks): a live key is forbidden, naming test mode. */
export function requireTestKey(req: Request): void {
  if (apiKeyOf(req).livemode) throw new AppError('forbidden', 'test clocks exist in test mode only: use a test key (pfx_test_...)');
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

/**
 * Who a request acts for, and from where, as every service call carries it (the audit log's actor
 * and IP, SPEC 14): an API key by its id and prefix. An executor session names no actor: its
 * trading is the trader's own, told by its events and trades.
 */
export function actorOpts(req: Request): Pick<CallOpts, 'actor' | 'clientIp'> {
  const principal = principals.get(req);
  if (principal?.kind !== 'api_key') return {};
  const actor: Actor = { type: 'api_key', id: principal.keyId, label: principal.keyPrefix };
  return { actor, clientIp: clientIp(req) };
}

export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}
