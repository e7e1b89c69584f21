import { accountsv1, authv1 } from '@propdesk/proto';

/** proto (camelCase, enums, Dates) -> the panel's JSON (snake_case, names, ISO strings), in one place. */

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

export function presentKey(key: authv1.ApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    scopes: key.scopes,
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
  };
}

export function presentRevokedKey(key: authv1.ApiKey) {
  return { id: key.id, prefix: key.prefix, name: key.name, scopes: key.scopes, revoked_at: iso(key.revokedAt) };
}

const STATUS_NAMES: Partial<Record<accountsv1.AccountStatus, string>> = {
  [accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE]: 'active',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED]: 'passed',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED]: 'breached',
  [accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED]: 'archived',
};

export const ACCOUNT_STATUS_FILTERS: Record<string, accountsv1.AccountStatus> = {
  active: accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  passed: accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED,
  breached: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
  archived: accountsv1.AccountStatus.ACCOUNT_STATUS_ARCHIVED,
};

/** SPEC section 9. */
export function presentAccount(a: accountsv1.Account) {
  return {
    number: Number(a.number),
    status: STATUS_NAMES[a.status] ?? 'active',
    trader_id: a.traderId ?? null,
    program: a.program,
    currency: a.currency,
    initial_balance: a.initialBalance,
    balance: a.balance,
    equity: a.equity,
    peak_equity: a.peakEquity,
    created_at: iso(a.createdAt),
  };
}
