import { authv1, type tradingv1 } from '@propdesk/proto';
import { modeNameOf, toRestPosition } from '@propdesk/kit';

/**
 * proto (camelCase, enums, Dates) -> the panel's JSON (snake_case, names, ISO strings), in one place.
 * Accounts show in their REST shape, the kit's toRestAccount.
 */

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

export type RoleName = 'owner' | 'admin' | 'member';

export function roleName(role: authv1.Role): RoleName {
  if (role === authv1.Role.ROLE_OWNER) return 'owner';
  if (role === authv1.Role.ROLE_ADMIN) return 'admin';
  return 'member';
}

export interface UserJson {
  id: string;
  email: string;
  role: RoleName;
  organization_id: string;
}

export function presentUser(user: authv1.User): UserJson {
  return { id: user.id, email: user.email, role: roleName(user.role), organization_id: user.organizationId };
}

/**
 * A position as the panel shows it: the REST shape, and for an open one the price it is marked at
 * and its floating P/L (null without a quote), so the account page can show them as quotes arrive.
 */
export function presentPosition(position: tradingv1.Position) {
  return { ...toRestPosition(position), current_price: position.currentPrice ?? null, floating_profit: position.floatingProfit ?? null };
}

/** The signed-in user's organization: what the panel shows of it (credits left where accounts are created). */
export function presentOrganization(org: authv1.Organization) {
  return { id: org.id, name: org.name, plan_status: org.planStatus === authv1.PlanStatus.PLAN_STATUS_PAID ? 'paid' : 'unpaid', credits: Number(org.credits) };
}

/** A member of the team as the Team page shows it. */
export function presentTeamUser(user: authv1.User) {
  return { id: user.id, email: user.email, role: roleName(user.role), created_at: iso(user.createdAt) };
}

/** A key in the panel's lists and after a limits change; a null limit is the deployment's default. */
export function presentKey(key: authv1.ApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    scopes: key.scopes,
    mode: modeNameOf(key.mode),
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
    expires_at: iso(key.expiresAt),
    limits: { read: key.readPerMin ?? null, write: key.writePerMin ?? null },
  };
}

/** A key just created or rolled: the only answer that carries its token. */
export function presentCreatedKey(key: authv1.ApiKey, token: string) {
  return { id: key.id, token, prefix: key.prefix, name: key.name, scopes: key.scopes, mode: modeNameOf(key.mode), expires_at: iso(key.expiresAt) };
}

export function presentRevokedKey(key: authv1.ApiKey) {
  return { id: key.id, prefix: key.prefix, name: key.name, scopes: key.scopes, mode: modeNameOf(key.mode), revoked_at: iso(key.revokedAt) };
}
