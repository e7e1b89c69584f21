import { createdFields, recordAudit } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';
import { validOrganizationName, type PlanStatus } from '../domain/organization';
import { organizationAudit } from './team-audit';

export async function createOrganization(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations'>,
  input: { name: string; planStatus: PlanStatus; credits: string },
): Promise<OrganizationRecord> {
  const name = validOrganizationName(input.name);
  const credits = parseCount(input.credits, 'credits', 0n);
  return deps.sequelize.transaction(async (transaction) => {
    const organization = await deps.organizations.insert({ name, planStatus: input.planStatus, credits }, transaction);
    await recordAudit(
      transaction,
      organizationAudit(organization, 'organization.create', createdFields({ name: organization.name, plan_status: organization.planStatus, credits: organization.credits })),
    );
    return organization;
  });
}
