import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';
import { changeOrganization } from './change-organization';

/** credits.low fires when a provisioning takes the remaining credits below this (0 = never). */
export async function setCreditsLowThreshold(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations'>,
  input: { organizationId: string; threshold: string },
): Promise<OrganizationRecord> {
  const threshold = parseCount(input.threshold, 'threshold', 0n);
  return changeOrganization(deps, input.organizationId, 'organization.set_credits_threshold', (id, transaction) =>
    deps.organizations.setCreditsLowThreshold(id, threshold, transaction),
  );
}
