import { Router, type Request } from 'express';
import {
  AppError,
  MAX_INITIAL_BALANCE,
  MONEY_STEP,
  PAYOUT_STATUSES,
  exactNumberSchema,
  payoutDecider,
  payoutStatusValue,
  textSchema,
  toRestAccount,
  toRestAdjustment,
  toRestPayout,
  z,
} from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { accountNumberParam, idParam, pageOf, pageParams, parseBody, queryString } from '../validation';

// The same rules as over REST (the services apply them again).
const reasonBody = z.object({ reason: textSchema({ max: 500 }) });
const adjustmentBody = z.object({
  amount: exactNumberSchema({ unit: 'USD', step: MONEY_STEP, nonZero: true, max: MAX_INITIAL_BALANCE }),
  reason: textSchema({ max: 500 }),
});

function payoutStatusParam(req: Request): tradingv1.PayoutStatus {
  const raw = queryString(req, 'status');
  if (raw === undefined || raw === '') return tradingv1.PayoutStatus.PAYOUT_STATUS_UNSPECIFIED;
  const name = PAYOUT_STATUSES.find((s) => s === raw);
  if (!name) throw new AppError('invalid_request', `status must be one of ${PAYOUT_STATUSES.join(', ')}`, 'status');
  return payoutStatusValue(name);
}

function accountFilter(req: Request): string | undefined {
  const raw = queryString(req, 'account');
  if (raw === undefined || raw === '') return undefined;
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new AppError('invalid_request', 'account must be a positive integer', 'account');
  return raw;
}

/**
 * SPEC 14 in the panel: the payouts of the organization (every signed-in user reads them; owners
 * and admins approve and reject, as the signed-in user), and the account's operator controls
 * (halt, resume, reinstate, adjust the balance), for owners and admins only (403 forbidden to a
 * member).
 */
export function operationRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const target = (req: Request) => ({ ...tenantOf(req), number: accountNumberParam(req) });
  const payout = (req: Request) => ({ ...tenantOf(req), payoutId: idParam(req, 'id', 'payout') });
  const decidedBy = (req: Request) => payoutDecider('user', sessionOf(req).user.id);

  router.get('/panel/api/payouts', session, async (req, res) => {
    const page = await clients.trading.listOrganizationPayouts({ ...tenantOf(req), ...pageParams(req), status: payoutStatusParam(req), account: accountFilter(req) });
    res.json(pageOf(page.payouts.map(toRestPayout), page.nextPageToken));
  });

  router.post('/panel/api/payouts/:id/approve', session, managers, async (req, res) => {
    const { payout: approved } = await clients.trading.approvePayout({ ...payout(req), decidedBy: decidedBy(req) });
    if (!approved) throw new AppError('internal_error', 'the trading service returned no payout');
    res.json(toRestPayout(approved));
  });

  router.post('/panel/api/payouts/:id/reject', session, managers, async (req, res) => {
    const { reason } = parseBody(reasonBody, req);
    const { payout: rejected } = await clients.trading.rejectPayout({ ...payout(req), decidedBy: decidedBy(req), reason });
    if (!rejected) throw new AppError('internal_error', 'the trading service returned no payout');
    res.json(toRestPayout(rejected));
  });

  router.post('/panel/api/accounts/:number/halt', session, managers, async (req, res) => {
    const { reason } = parseBody(reasonBody, req);
    const { account } = await clients.accounts.haltAccount({ ...target(req), reason });
    if (!account) throw new AppError('internal_error', 'the accounts service returned no account');
    res.json(toRestAccount(account));
  });

  router.post('/panel/api/accounts/:number/resume', session, managers, async (req, res) => {
    const { account } = await clients.accounts.resumeAccount(target(req));
    if (!account) throw new AppError('internal_error', 'the accounts service returned no account');
    res.json(toRestAccount(account));
  });

  router.post('/panel/api/accounts/:number/reinstate', session, managers, async (req, res) => {
    const { reason } = parseBody(reasonBody, req);
    const { account } = await clients.trading.reinstateAccount({ ...target(req), reason });
    if (!account) throw new AppError('internal_error', 'the trading service returned no account');
    res.json(toRestAccount(account));
  });

  router.post('/panel/api/accounts/:number/adjustments', session, managers, async (req, res) => {
    const { amount, reason } = parseBody(adjustmentBody, req);
    const { adjustment } = await clients.trading.adjustBalance({ ...target(req), amount, reason });
    if (!adjustment) throw new AppError('internal_error', 'the trading service returned no adjustment');
    res.status(201).json(toRestAdjustment(adjustment));
  });

  return router;
}
