import type { CursorCodec } from '@propdesk/kit';
import { listPositions as listPositionRows, type PositionStatus } from '../data/positions';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import { markPosition, type LiveEngine, type MarkedPosition } from './trading-context';

/** ListPositions: an account's positions, oldest first, optionally of one status, marked at the cached quotes. */
export function listPositions(
  engine: LiveEngine,
  cursors: CursorCodec,
  req: AccountPageRequest & { status: PositionStatus | undefined },
): Promise<Page<MarkedPosition>> {
  return accountPage(engine, cursors, { name: 'positions', filter: req.status ?? 'all' }, req, async (ctx, number, after, limit) =>
    (await listPositionRows(ctx.sequelize, number, req.status, after, limit)).map((p) => markPosition(ctx, p)),
  );
}
