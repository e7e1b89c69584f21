import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import type { PlanStatus } from '../domain/organization';
import { changeOrganization } from './change-organization';

/** Cached key verifications carry the plan status, so gateways drop the organization's keys before this answers. */
export async function setOrganizationPlan(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations' | 'relay'>,
  input: { organizationId: string; planStatus: PlanStatus },
): Promise<OrganizationRecord> {
  const organization = await changeOrganization(deps, input.organizationId, 'organization.set_plan', (id, transaction) =>
    deps.organizations.setPlan(id, input.planStatus, transaction),
  );
  await deps.relay.publish({ organizationId: organization.id });
  return organization;
}
