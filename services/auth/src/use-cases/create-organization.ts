import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';
import { validOrganizationName, type PlanStatus } from '../domain/organization';

export async function createOrganization(
  deps: Pick<AuthDeps, 'organizations'>,
  input: { name: string; planStatus: PlanStatus; credits: string },
): Promise<OrganizationRecord> {
  const name = validOrganizationName(input.name);
  const credits = parseCount(input.credits, 'credits', 0n);
  return deps.organizations.insert({ name, planStatus: input.planStatus, credits });
}
