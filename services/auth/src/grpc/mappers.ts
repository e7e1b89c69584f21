import { modeOf } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import type { ApiKeyRecord } from '../data/api-keys';
import type { OrganizationRecord } from '../data/organizations';
import type { UserRecord, UserRole } from '../data/users';
import type { PlanStatus } from '../domain/organization';

export function planStatusToProto(status: PlanStatus): authv1.PlanStatus {
  return status === 'paid' ? authv1.PlanStatus.PLAN_STATUS_PAID : authv1.PlanStatus.PLAN_STATUS_UNPAID;
}

/** undefined for UNSPECIFIED or an unknown number; each RPC decides what that means. */
export function planStatusFromProto(status: authv1.PlanStatus): PlanStatus | undefined {
  if (status === authv1.PlanStatus.PLAN_STATUS_PAID) return 'paid';
  if (status === authv1.PlanStatus.PLAN_STATUS_UNPAID) return 'unpaid';
  return undefined;
}

const ROLE_TO_PROTO: Record<UserRole, authv1.Role> = {
  owner: authv1.Role.ROLE_OWNER,
  admin: authv1.Role.ROLE_ADMIN,
  member: authv1.Role.ROLE_MEMBER,
};

export function roleFromProto(role: authv1.Role): UserRole | undefined {
  return (Object.keys(ROLE_TO_PROTO) as UserRole[]).find((r) => ROLE_TO_PROTO[r] === role);
}

export function organizationToProto(org: OrganizationRecord): authv1.Organization {
  return {
    id: org.id,
    name: org.name,
    planStatus: planStatusToProto(org.planStatus),
    credits: org.credits,
    creditsLowThreshold: org.creditsLowThreshold,
    createdAt: org.createdAt,
  };
}

export function userToProto(user: UserRecord): authv1.User {
  return { id: user.id, organizationId: user.organizationId, email: user.email, role: ROLE_TO_PROTO[user.role], createdAt: user.createdAt };
}

export function apiKeyToProto(key: ApiKeyRecord): authv1.ApiKey {
  return {
    id: key.id,
    organizationId: key.organizationId,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? undefined,
    revokedAt: key.revokedAt ?? undefined,
    expiresAt: key.expiresAt ?? undefined,
    readPerMin: key.readPerMin ?? undefined,
    writePerMin: key.writePerMin ?? undefined,
    mode: modeOf(key.livemode),
  };
}
