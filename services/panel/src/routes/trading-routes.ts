import { Router, type Request } from 'express';
import { AppError, POSITION_STATUS_NAMES, positionStatusFilter, textSchema, toRestAccount, toRestDeal, toRestEquityPoint, toRestFlag, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { presentPosition } from '../presenters';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { accountNumberParam, pageOf, pageParams, parseBody, queryString } from '../validation';

/** The panel's chart asks for this many points; the trading service downsamples any range to it. */
const DEFAULT_EQUITY_POINTS = 1000;
const breachBody = z.object({ reason: textSchema({ max: 500 }) });


function timeParam(req: Request, name: 'from' | 'to'): Date | undefined {
  const raw = queryString(req, name);
  if (raw === undefined || raw === '') return undefined;
  const time = new Date(raw);
  if (Number.isNaN(time.getTime())) throw new AppError('invalid_request', `${name} must be an ISO 8601 time`, name);
  return time;
}

function maxPointsParam(req: Request): number {
  const raw = queryString(req, 'max_points');
  if (raw === undefined || raw === '') return DEFAULT_EQUITY_POINTS;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new AppError('invalid_request', 'max_points must be a positive integer', 'max_points');
  return Number(raw);
}

function positionStatusParam(req: Request) {
  const raw = queryString(req, 'status');
  if (raw === undefined || raw === '') return positionStatusFilter(undefined);
  const name = POSITION_STATUS_NAMES.find((s) => s === raw);
  if (!name) throw new AppError('invalid_request', `status must be one of ${POSITION_STATUS_NAMES.join(', ')}`, 'status');
  return positionStatusFilter(name);
}

/** An account's trading, through TradingService: positions, deals, flags, analytics, equity, terms, manual breach. */
export function tradingRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const target = (req: Request) => ({ ...tenantOf(req), number: accountNumberParam(req) });

  router.get('/panel/api/accounts/:number/positions', session, async (req, res) => {
    const result = await clients.trading.listPositions({ ...target(req), ...pageParams(req), status: positionStatusParam(req) });
    res.json(pageOf(result.positions.map(presentPosition), result.nextPageToken));
  });

  router.get('/panel/api/accounts/:number/trades', session, async (req, res) => {
    const result = await clients.trading.listTrades({ ...target(req), ...pageParams(req) });
    res.json(pageOf(result.deals.map(toRestDeal), result.nextPageToken));
  });

  router.get('/panel/api/accounts/:number/flags', session, async (req, res) => {
    const result = await clients.trading.listFlags({ ...target(req), ...pageParams(req) });
    res.json(pageOf(result.flags.map(toRestFlag), result.nextPageToken));
  });

  router.get('/panel/api/accounts/:number/analytics', session, async (req, res) => {
    const result = await clients.trading.getAnalytics(target(req));
    res.json(result.analytics ?? {});
  });

  // Bounded for any range: the service downsamples to max_points (default 1000), keeping each bucket's low and high.
  router.get('/panel/api/accounts/:number/equity', session, async (req, res) => {
    const result = await clients.trading.getEquityCurve({ ...target(req), from: timeParam(req, 'from'), to: timeParam(req, 'to'), maxPoints: maxPointsParam(req) });
    res.json({ data: result.points.map(toRestEquityPoint) });
  });

  // The frozen terms, the headroom and every breach with its evidence: the report's terms section.
  router.get('/panel/api/accounts/:number/terms', session, async (req, res) => {
    const result = await clients.trading.getTerms(target(req));
    res.json(result.terms ?? {});
  });

  router.post('/panel/api/accounts/:number/breach', session, managers, async (req, res) => {
    const { reason } = parseBody(breachBody, req);
    const result = await clients.trading.breachAccount({ ...target(req), reason });
    if (!result.account) throw new AppError('internal_error', 'the trading service returned no account');
    res.json(toRestAccount(result.account));
  });

  return router;
}
