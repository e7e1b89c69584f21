import type { Request } from 'express';
import { annotateServerSpan, AppError, ATTR_ORGANIZATION_ID, tracingActive } from '@propdesk/kit';

export const SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKeyPrincipal {
  kind: 'api_key';
  keyId: string;
  organizationId: string;
}

export interface ExecutorPrincipal {
  kind: 'executor';
  organizationId: string;
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
