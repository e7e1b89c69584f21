import type { CursorCodec } from '@propdesk/kit';
import { listPositions as listPositionRows, type PositionStatus } from '../data/positions';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import { markPosition, type Markets, type MarkedPosition } from './trading-context';

/** ListPositions: an account's positions, oldest first, optionally of one status, marked at the cached quotes. */
export function listPositions(
  markets: Markets,
  cursors: CursorCodec,
  req: AccountPageRequest & { status: PositionStatus | undefined },
): Promise<Page<MarkedPosition>> {
  return accountPage(markets, cursors, { name: 'positions', filter: req.status ?? 'all' }, req, async (ctx, number, after, limit) =>
    (await listPositionRows(ctx.sequelize, number, req.status, after, limit)).map((p) => markPosition(ctx, p)),
  );
}
