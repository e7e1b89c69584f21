import { AppError, createdFields, isUuid, notFound, recordAudit } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { UserRecord, UserRole } from '../data/users';
import { validEmail } from '../domain/email';
import { hashPassword, validatePassword } from '../domain/password';
import { userAudit } from './team-audit';

export async function createUser(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations' | 'users'>,
  input: { organizationId: string; email: string; password: string; role: UserRole | undefined },
): Promise<UserRecord> {
  const email = validEmail(input.email);
  validatePassword(input.password);
  if (!input.role) throw new AppError('invalid_request', 'role must be owner, admin or member', 'role');
  const organization = isUuid(input.organizationId) ? await deps.organizations.findById(input.organizationId) : undefined;
  if (!organization) throw notFound('organization');
  const passwordHash = await hashPassword(input.password);
  const role = input.role;
  return deps.sequelize.transaction(async (transaction) => {
    const user = await deps.users.insert({ organizationId: organization.id, email, passwordHash, role }, transaction);
    if (!user) throw new AppError('conflict', 'a user with this email already exists', 'email');
    await recordAudit(transaction, userAudit(user, 'user.create', createdFields({ email: user.email, role: user.role })));
    return user;
  });
}
