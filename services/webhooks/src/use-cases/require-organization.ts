import { AppError } from '@propdesk/kit';

/** The gateway always sends the caller's organization; an empty one is a wiring bug, not a 500. */
export function requireOrganization(organizationId: string): string {
  if (!organizationId || organizationId.length > 64) throw new AppError('invalid_request', 'organization_id is required', 'organization_id');
  return organizationId;
}
