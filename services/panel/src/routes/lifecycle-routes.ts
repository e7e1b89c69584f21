import { Router, type Request } from 'express';
import { AppError, MONEY_STEP, exactNumberSchema, PROGRAM_STATUSES, toRestAccount, toRestPayout, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { accountNumberParam, pageOf, pageParams, parseBody, queryString } from '../validation';

const payoutBody = z.object({ amount: exactNumberSchema({ unit: 'USD', step: MONEY_STEP }).optional() });


/** A program name of the path: anything that cannot be one names nothing (404). */
function programName(req: Request): string {
  const raw = req.params.name;
  if (typeof raw !== 'string' || !/^[a-z0-9][a-z0-9-]{1,62}$/.test(raw)) throw new AppError('not_found', 'program not found');
  return raw;
}

/** The program body as sent: the accounts service validates it (param = the field's path, e.g. phases[1].profit_target_pct). */
function programBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_request', 'the request body must be a JSON object', 'body');
  return body as Record<string, unknown>;
}

/** Programs as data, resets and payouts (SPEC section 10), through the accounts service's RPCs. */
export function lifecycleRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);

  router.get('/panel/api/programs', session, async (req, res) => {
    const status = queryString(req, 'status') ?? '';
    if (status !== '' && !(PROGRAM_STATUSES as readonly string[]).includes(status)) {
      throw new AppError('invalid_request', `status must be one of ${PROGRAM_STATUSES.join(', ')}`, 'status');
    }
    const page = await clients.accounts.listPrograms({ ...tenantOf(req), ...pageParams(req), status });
    res.json(pageOf(page.programs, page.nextPageToken));
  });

  router.get('/panel/api/programs/:name', session, async (req, res) => {
    const raw = queryString(req, 'version');
    if (raw !== undefined && !/^[1-9]\d{0,8}$/.test(raw)) throw new AppError('invalid_request', 'version must be a positive integer', 'version');
    const { program } = await clients.accounts.getProgram({ ...tenantOf(req), name: programName(req), version: raw === undefined ? 0 : Number(raw) });
    res.json(program);
  });

  router.post('/panel/api/programs', session, managers, async (req, res) => {
    const { program } = await clients.accounts.createProgram({ ...tenantOf(req), program: programBody(req) });
    res.status(201).json(program);
  });

  router.put('/panel/api/programs/:name', session, managers, async (req, res) => {
    const { program } = await clients.accounts.updateProgram({ ...tenantOf(req), name: programName(req), program: programBody(req) });
    res.json(program);
  });

  router.post('/panel/api/programs/:name/archive', session, managers, async (req, res) => {
    const { program } = await clients.accounts.archiveProgram({ ...tenantOf(req), name: programName(req) });
    res.json(program);
  });

  router.post('/panel/api/accounts/:number/reset', session, managers, async (req, res) => {
    const { account } = await clients.trading.resetAccount({ ...tenantOf(req), number: accountNumberParam(req) });
    if (!account) throw new AppError('internal_error', 'the trading service returned no account');
    res.json(toRestAccount(account));
  });

  router.get('/panel/api/accounts/:number/payouts', session, async (req, res) => {
    const page = await clients.trading.listPayouts({ ...tenantOf(req), number: accountNumberParam(req), ...pageParams(req) });
    res.json(pageOf(page.payouts.map(toRestPayout), page.nextPageToken));
  });

  router.post('/panel/api/accounts/:number/payouts', session, managers, async (req, res) => {
    const number = accountNumberParam(req);
    const { amount } = parseBody(payoutBody, req);
    const { payout } = await clients.trading.createPayout({ ...tenantOf(req), number, amount });
    if (!payout) throw new AppError('internal_error', 'the trading service returned no payout');
    res.status(201).json(toRestPayout(payout));
  });

  return router;
}
