import { Router } from 'express';
import { AppError, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { clearSessionCookie, requireSession, sessionOf, sessionToken, setSessionCookie } from '../http/session';
import { presentOrganization, presentUser } from '../presenters';
import { parseBody } from '../validation';

const loginBody = z.object({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});

export function sessionRoutes(clients: PanelClients): Router {
  const router = Router();

  // The auth service decides (the same answer for an unknown email and a wrong password) and
  // limits failures per email and per client IP; req.ip is the browser's address behind the gateway.
  router.post('/panel/api/login', async (req, res) => {
    const { email, password } = parseBody(loginBody, req);
    const result = await clients.auth.login({ email: email.trim(), password, clientIp: req.ip ?? '' });
    if (!result.user || !result.sessionToken) throw new AppError('internal_error', 'the auth service returned no session');
    setSessionCookie(req, res, result.sessionToken, result.expiresAt);
    res.status(200).json({ user: presentUser(result.user) });
  });

  router.post('/panel/api/logout', async (req, res) => {
    const token = sessionToken(req);
    if (token) {
      try {
        await clients.auth.logout({ sessionToken: token });
      } catch (err) {
        // An unknown or expired session is already logged out; anything else is worth a retry.
        if (!(err instanceof AppError) || err.code === 'unavailable' || err.code === 'internal_error') throw err;
      }
    }
    clearSessionCookie(req, res);
    res.status(200).json({ ok: true });
  });

  router.get('/panel/api/me', requireSession(clients), (req, res) => {
    res.json({ user: sessionOf(req).user });
  });

  // Credits left, shown where accounts are created and reset (each spends one).
  router.get('/panel/api/organization', requireSession(clients), async (req, res) => {
    const { organization } = await clients.auth.getOrganization({ organizationId: sessionOf(req).user.organization_id });
    if (!organization) throw new AppError('internal_error', 'the auth service returned no organization');
    res.json(presentOrganization(organization));
  });

  return router;
}
