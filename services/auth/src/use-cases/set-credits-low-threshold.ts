import { isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { parseCount } from '../domain/numbers';

/** credits.low fires when a provisioning takes the remaining credits below this (0 = never). */
export async function setCreditsLowThreshold(
  deps: Pick<AuthDeps, 'organizations'>,
  input: { organizationId: string; threshold: string },
): Promise<OrganizationRecord> {
  const threshold = parseCount(input.threshold, 'threshold', 0n);
  const organization = isUuid(input.organizationId)
    ? await deps.organizations.setCreditsLowThreshold(input.organizationId, threshold)
    : undefined;
  if (!organization) throw notFound('organization');
  return organization;
}
