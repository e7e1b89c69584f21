import { changedFields, isUuid, notFound, recordAudit, type Transaction } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { OrganizationRecord } from '../data/organizations';
import { organizationAudit } from './team-audit';

/** The organization's fields an operator changes (CLI), as its audit entries name them. */
function auditedFields(organization: OrganizationRecord): Record<string, unknown> {
  return { plan_status: organization.planStatus, credits: organization.credits, credits_low_threshold: organization.creditsLowThreshold };
}

/**
 * One change of an organization, under its row lock, with its audit entry (`action`) naming the
 * fields that changed; a change that changes nothing records nothing. Unknown or malformed id:
 * not_found.
 */
export async function changeOrganization(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations'>,
  organizationId: string,
  action: string,
  change: (id: string, transaction: Transaction) => Promise<OrganizationRecord | undefined>,
): Promise<OrganizationRecord> {
  if (!isUuid(organizationId)) throw notFound('organization');
  const id = organizationId.toLowerCase();
  return deps.sequelize.transaction(async (transaction) => {
    const before = await deps.organizations.lockById(id, transaction);
    if (!before) throw notFound('organization');
    const after = await change(id, transaction);
    if (!after) throw notFound('organization');
    const changes = changedFields(auditedFields(before), auditedFields(after));
    if (Object.keys(changes).length > 0) await recordAudit(transaction, organizationAudit(after, action, changes));
    return after;
  });
}
