import { Router, type RequestHandler } from 'express';
import { AppError } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession } from '../http/session';

/**
 * Panel endpoints whose service calls do not exist yet: programs as data, resets and payouts
 * (SPEC section 10). Each is routed, session- and role-checked like the real one will be, and
 * answers 503 unavailable saying what is missing, so the pages show a clear state instead of a
 * broken one. Wiring one = replacing its handler with the service call.
 */
export function pendingRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const notYet =
    (what: string): RequestHandler =>
    () => {
      throw new AppError('unavailable', `${what} are not available yet on this installation`);
    };
  router.get('/panel/api/programs', session, notYet('programs as data'));
  router.post('/panel/api/programs', session, managers, notYet('programs as data'));
  router.put('/panel/api/programs/:name', session, managers, notYet('programs as data'));
  router.post('/panel/api/programs/:name/archive', session, managers, notYet('programs as data'));
  router.post('/panel/api/accounts/:number/reset', session, managers, notYet('account resets'));
  router.get('/panel/api/accounts/:number/payouts', session, notYet('payouts'));
  router.post('/panel/api/accounts/:number/payouts', session, managers, notYet('payouts'));
  return router;
}
