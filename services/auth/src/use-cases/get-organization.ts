import { isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';

export async function getOrganization(deps: Pick<AuthDeps, 'organizations'>, organizationId: string): Promise<OrganizationRecord> {
  const organization = isUuid(organizationId) ? await deps.organizations.findById(organizationId) : undefined;
  if (!organization) throw notFound('organization');
  return organization;
}
