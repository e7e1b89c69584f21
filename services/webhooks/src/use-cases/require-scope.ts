import { AppError, livemodeOf, type ScopeFields, type TenantScope } from '@propdesk/kit';

/**
 * The partition a request acts on: the gateway always sends the caller's organization (an empty
 * one is a wiring bug, not a 500) and mode (UNSPECIFIED = live, SPEC 13).
 */
export function requireScope(request: ScopeFields): TenantScope {
  const { organizationId } = request;
  if (!organizationId || organizationId.length > 64) throw new AppError('invalid_request', 'organization_id is required', 'organization_id');
  return { organizationId, livemode: livemodeOf(request.mode) };
}
