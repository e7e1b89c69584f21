import { AppError } from '@propdesk/kit';
import { parseAccountNumber, parseOrganizationId } from '../core-port';
import { equityCurve, type CurvePoint } from '../data/statistics';
import { requireAccount } from './account-access';
import type { LiveEngine } from './trading-context';

/** At most this many points per answer (the newest within the range). */
export const EQUITY_CURVE_MAX_POINTS = 5000;

/** GetEquityCurve: per-minute closes within [from, to], preceded by the initial balance at creation when in range. */
export async function getEquityCurve(engine: LiveEngine, req: { organizationId: string; number: string; from: Date | null; to: Date | null }): Promise<CurvePoint[]> {
  const org = parseOrganizationId(req.organizationId);
  const number = parseAccountNumber(req.number);
  const ctx = await engine.context();
  const { from, to } = req;
  if (from && to && from.getTime() > to.getTime()) throw new AppError('invalid_request', 'from must not be after to', 'from');
  const account = await requireAccount(ctx, org, number);
  const points = await equityCurve(ctx.sequelize, number, from, to, EQUITY_CURVE_MAX_POINTS);
  const created = account.createdAt;
  const inRange = (!from || created >= from) && (!to || created <= to);
  if (inRange && (points.length === 0 || points[0].time > created) && points.length < EQUITY_CURVE_MAX_POINTS) {
    points.unshift({ time: created, equity: account.initialBalance, balance: account.initialBalance });
  }
  return points;
}
