import type { AuditChange } from '@propdesk/kit';
import type { OrganizationRecord } from '../data/organizations';
import type { UserRecord } from '../data/users';

/**
 * Panel users and organizations belong to no mode: their audit entries are live ones (SPEC 14,
 * target user or organization, its id). A password, or its hash, is never part of an entry.
 */
export function userAudit(user: UserRecord, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope: { organizationId: user.organizationId, livemode: true }, action, target: { type: 'user', id: user.id }, changes };
}

export function organizationAudit(organization: OrganizationRecord, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope: { organizationId: organization.id, livemode: true }, action, target: { type: 'organization', id: organization.id }, changes };
}
