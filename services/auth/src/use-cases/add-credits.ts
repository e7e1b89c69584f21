import { isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';

export async function addCredits(
  deps: Pick<AuthDeps, 'organizations'>,
  input: { organizationId: string; credits: string },
): Promise<OrganizationRecord> {
  const credits = parseCount(input.credits, 'credits', 1n);
  const organization = isUuid(input.organizationId) ? await deps.organizations.addCredits(input.organizationId, credits) : undefined;
  if (!organization) throw notFound('organization');
  return organization;
}
