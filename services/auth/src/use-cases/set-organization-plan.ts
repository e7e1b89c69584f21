import { isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import type { PlanStatus } from '../domain/organization';

/** Cached key verifications carry the plan status, so gateways drop the organization's keys before this answers. */
export async function setOrganizationPlan(
  deps: Pick<AuthDeps, 'organizations' | 'relay'>,
  input: { organizationId: string; planStatus: PlanStatus },
): Promise<OrganizationRecord> {
  const organization = isUuid(input.organizationId) ? await deps.organizations.setPlan(input.organizationId, input.planStatus) : undefined;
  if (!organization) throw notFound('organization');
  await deps.relay.publish({ organizationId: organization.id });
  return organization;
}
