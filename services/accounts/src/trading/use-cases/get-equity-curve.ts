import { AppError, type ScopeFields } from '@propdesk/kit';
import { parseAccountNumber, parseScope } from '../core-port';
import { equityCurve, equityCurveBuckets, equityRange, type CurvePoint } from '../data/statistics';
import { requireAccount } from './account-access';
import type { Markets } from './trading-context';

/** At most this many points per answer, and the default. */
export const EQUITY_CURVE_MAX_POINTS = 5000;
const EQUITY_CURVE_MIN_POINTS = 4;

/** 0 (unset) = the most; anything else clamped to [4, 5000]. */
export function equityPointBudget(maxPoints: number | undefined): number {
  if (!maxPoints || maxPoints <= 0) return EQUITY_CURVE_MAX_POINTS;
  return Math.min(EQUITY_CURVE_MAX_POINTS, Math.max(EQUITY_CURVE_MIN_POINTS, Math.floor(maxPoints)));
}

/**
 * GetEquityCurve: the per-minute closes within [from, to] when they fit in the point budget;
 * otherwise the range downsampled to (budget - 2) / 2 time buckets of lowest and highest equity,
 * ending with the latest close. Preceded by the initial balance at creation when in range. Any
 * range answers a bounded number of points with one aggregate over the range's rows.
 */
export async function getEquityCurve(
  markets: Markets,
  req: ScopeFields & { number: string; from: Date | null; to: Date | null; maxPoints?: number },
): Promise<CurvePoint[]> {
  const scope = parseScope(req);
  const number = parseAccountNumber(req.number);
  const ctx = await (await markets.of(scope, number, 'read')).context();
  const { to } = req;
  if (req.from && to && req.from.getTime() > to.getTime()) throw new AppError('invalid_request', 'from must not be after to', 'from');
  const account = await requireAccount(ctx, scope, number);
  // The curve covers the current attempt: nothing before its start (SPEC 10).
  const attemptStart = account.attempt > 1 ? account.attemptStartedAt : null;
  const from = attemptStart && (!req.from || req.from < attemptStart) ? attemptStart : req.from;
  const budget = equityPointBudget(req.maxPoints);
  // The initial balance at creation and the latest close are kept beside the buckets.
  const range = await equityRange(ctx.sequelize, number, from, to);
  // At most one bucket per minute: a span of fewer minutes than the budget cannot overflow it.
  const minutesSpanned = range.first && range.last ? (range.last.getTime() - range.first.getTime()) / 60_000 + 1 : 0;
  let points: CurvePoint[];
  if (minutesSpanned <= budget - 1 || !range.first || !range.last) {
    points = await equityCurve(ctx.sequelize, number, from, to, budget - 1);
  } else {
    const buckets = Math.floor((budget - 2) / 2);
    points = await equityCurveBuckets(ctx.sequelize, number, range.first, range.last, buckets);
    const [latest] = await equityCurve(ctx.sequelize, number, range.last, range.last, 1);
    const tail = points[points.length - 1];
    if (latest && (!tail || tail.time.getTime() !== latest.time.getTime() || tail.equity !== latest.equity)) points.push(latest);
  }
  const created = attemptStart ?? account.createdAt;
  const inRange = (!from || created >= from) && (!to || created <= to);
  if (inRange && (points.length === 0 || points[0]!.time > created)) {
    points.unshift({ time: created, equity: account.initialBalance, balance: account.initialBalance });
  }
  return points;
}
