import { Router } from 'express';
import { AppError, emailSchema, isUuid, z } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import type { PanelClients } from '../clients';
import { owners } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { presentTeamUser, type RoleName } from '../presenters';
import { pageOf, pageParams, parseBody } from '../validation';

const ROLES = ['owner', 'admin', 'member'] as const;
const ROLE_VALUE: Record<RoleName, authv1.Role> = {
  owner: authv1.Role.ROLE_OWNER,
  admin: authv1.Role.ROLE_ADMIN,
  member: authv1.Role.ROLE_MEMBER,
};

const addUserBody = z.object({
  email: emailSchema(),
  password: z.string().min(1).max(1024),
  role: z.enum(ROLES),
});
const roleBody = z.object({ role: z.enum(ROLES) });

function userId(raw: unknown): string {
  // Anything that cannot be a user id is simply an unknown user.
  if (typeof raw !== 'string' || !isUuid(raw)) throw new AppError('not_found', 'user not found');
  return raw.toLowerCase();
}

/** The Team page: everybody reads the team; only owners add, re-role and remove users. */
export function teamRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);

  router.get('/panel/api/team', session, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const result = await clients.auth.listUsers({ organizationId: organization_id, ...pageParams(req) });
    res.json(pageOf(result.users.map(presentTeamUser), result.nextPageToken));
  });

  router.post('/panel/api/team', session, owners, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const body = parseBody(addUserBody, req);
    const result = await clients.auth.createUser({ organizationId: organization_id, email: body.email, password: body.password, role: ROLE_VALUE[body.role] });
    if (!result.user) throw new AppError('internal_error', 'the auth service returned no user');
    res.status(201).json(presentTeamUser(result.user));
  });

  router.post('/panel/api/team/:id/role', session, owners, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const id = userId(req.params.id);
    const { role } = parseBody(roleBody, req);
    const result = await clients.auth.updateUserRole({ organizationId: organization_id, userId: id, role: ROLE_VALUE[role] });
    if (!result.user) throw new AppError('internal_error', 'the auth service returned no user');
    res.json(presentTeamUser(result.user));
  });

  router.delete('/panel/api/team/:id', session, owners, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const result = await clients.auth.deleteUser({ organizationId: organization_id, userId: userId(req.params.id) });
    res.json({ id: result.user?.id ?? '', deleted: true });
  });

  return router;
}
