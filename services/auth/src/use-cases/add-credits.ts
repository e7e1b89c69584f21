import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';
import { changeOrganization } from './change-organization';

export async function addCredits(deps: Pick<AuthDeps, 'sequelize' | 'organizations'>, input: { organizationId: string; credits: string }): Promise<OrganizationRecord> {
  const credits = parseCount(input.credits, 'credits', 1n);
  return changeOrganization(deps, input.organizationId, 'organization.add_credits', (id, transaction) => deps.organizations.addCredits(id, credits, transaction));
}
