import { AppError, isUuid, notFound, recordAudit, removedFields, type Transaction } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { UserRecord, UserRole } from '../data/users';
import { userAudit } from './team-audit';

type TeamDeps = Pick<AuthDeps, 'sequelize' | 'users'>;

const LAST_OWNER = 'an organization keeps at least one owner: make another user owner first';

/**
 * Runs a change of one user of the organization under the organization's row lock, so that the
 * "at least one owner" check and the change are one decision even when two owners act at once.
 */
async function withTeamLock<T>(
  deps: TeamDeps,
  input: { organizationId: string; userId: string },
  change: (user: UserRecord, owners: () => Promise<number>, transaction: Transaction) => Promise<T>,
): Promise<T> {
  if (!isUuid(input.organizationId) || !isUuid(input.userId)) throw notFound('user');
  const organizationId = input.organizationId.toLowerCase();
  const userId = input.userId.toLowerCase();
  return deps.sequelize.transaction(async (transaction) => {
    await deps.users.lockOrganizationUsers(organizationId, transaction);
    const user = await deps.users.findInOrganization(organizationId, userId, transaction);
    if (!user) throw notFound('user');
    return change(user, () => deps.users.countOwners(organizationId, transaction), transaction);
  });
}

/** A role change; demoting the last owner is refused. The new role applies from the user's next request. */
export async function updateUserRole(
  deps: TeamDeps,
  input: { organizationId: string; userId: string; role: UserRole | undefined },
): Promise<UserRecord> {
  const role = input.role;
  if (!role) throw new AppError('invalid_request', 'role must be owner, admin or member', 'role');
  return withTeamLock(deps, input, async (user, owners, transaction) => {
    if (user.role === role) return user;
    if (user.role === 'owner' && (await owners()) <= 1) throw new AppError('conflict', LAST_OWNER, 'role');
    const updated = await deps.users.setRole(user.id, role, transaction);
    await recordAudit(transaction, userAudit(updated, 'user.update', { role: [user.role, updated.role] }));
    return updated;
  });
}

/** Removes a user, ending their sessions at once; the last owner cannot be removed. */
export async function deleteUser(deps: TeamDeps, input: { organizationId: string; userId: string }): Promise<UserRecord> {
  return withTeamLock(deps, input, async (user, owners, transaction) => {
    if (user.role === 'owner' && (await owners()) <= 1) throw new AppError('conflict', LAST_OWNER);
    await deps.users.delete(user.id, transaction);
    await recordAudit(transaction, userAudit(user, 'user.delete', removedFields({ email: user.email, role: user.role })));
    return user;
  });
}
