import { AppError, pageSize, type CursorCodec } from '@propdesk/kit';
import { readAccount } from '../data/account-state';
import { listDeals, type Deal } from '../data/deals';
import { listFlags, type Flag } from '../data/flags';
import { listPositions, type Position, type PositionStatus } from '../data/positions';
import { equityCurve, type CurvePoint } from '../data/statistics';
import { accountNotFound } from './account-guards';
import type { TradingContext } from './context';

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

interface PageRequest {
  organizationId: string;
  accountNumber: number;
  pageSize?: number;
  pageToken?: string;
}

async function requireAccount(ctx: TradingContext, organizationId: string, accountNumber: number): Promise<void> {
  if (!(await readAccount(ctx.sequelize, accountNumber, { org: organizationId }))) throw accountNotFound();
}

/** Keyset paging on seq; the cursor scope binds organization, account and list (and filter). */
async function page<T extends { seq: number }>(
  cursors: CursorCodec,
  scope: string,
  req: PageRequest,
  fetch: (afterSeq: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = pageSize(req.pageSize);
  let afterSeq = 0;
  if (req.pageToken) {
    const position = cursors.decode<{ s?: unknown }>(scope, req.pageToken);
    if (typeof position?.s !== 'number' || !Number.isSafeInteger(position.s)) throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    afterSeq = position.s;
  }
  const rows = await fetch(afterSeq, limit + 1);
  const items = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? cursors.encode(scope, { s: items[items.length - 1].seq }) : '';
  return { items, nextPageToken };
}

export async function listAccountPositions(ctx: TradingContext, cursors: CursorCodec, req: PageRequest & { status?: PositionStatus }): Promise<Page<Position>> {
  await requireAccount(ctx, req.organizationId, req.accountNumber);
  const scope = `positions:${req.organizationId}:${req.accountNumber}:${req.status ?? 'all'}`;
  return page(cursors, scope, req, (after, limit) => listPositions(ctx.sequelize, req.accountNumber, req.status, after, limit));
}

export async function listAccountDeals(ctx: TradingContext, cursors: CursorCodec, req: PageRequest): Promise<Page<Deal>> {
  await requireAccount(ctx, req.organizationId, req.accountNumber);
  const scope = `trades:${req.organizationId}:${req.accountNumber}`;
  return page(cursors, scope, req, (after, limit) => listDeals(ctx.sequelize, req.accountNumber, after, limit));
}

export async function listAccountFlags(ctx: TradingContext, cursors: CursorCodec, req: PageRequest): Promise<Page<Flag>> {
  await requireAccount(ctx, req.organizationId, req.accountNumber);
  const scope = `flags:${req.organizationId}:${req.accountNumber}`;
  return page(cursors, scope, req, (after, limit) => listFlags(ctx.sequelize, req.accountNumber, after, limit));
}

/** At most this many points per answer (the newest within the range). */
export const EQUITY_CURVE_MAX_POINTS = 5000;

/** Per-minute closes within [from, to], preceded by the initial balance at creation when in range. */
export async function getEquityCurve(ctx: TradingContext, organizationId: string, accountNumber: number, from: Date | null, to: Date | null): Promise<CurvePoint[]> {
  if (from && to && from.getTime() > to.getTime()) throw new AppError('invalid_request', 'from must not be after to', 'from');
  const account = await readAccount(ctx.sequelize, accountNumber, { org: organizationId });
  if (!account) throw accountNotFound();
  const points = await equityCurve(ctx.sequelize, accountNumber, from, to, EQUITY_CURVE_MAX_POINTS);
  const created = account.createdAt;
  const inRange = (!from || created >= from) && (!to || created <= to);
  if (inRange && (points.length === 0 || points[0].time > created) && points.length < EQUITY_CURVE_MAX_POINTS) {
    points.unshift({ time: created, equity: account.initialBalance, balance: account.initialBalance });
  }
  return points;
}
