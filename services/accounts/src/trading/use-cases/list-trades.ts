import type { CursorCodec } from '@propdesk/kit';
import { listDeals, type Deal } from '../data/deals';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import type { Markets } from './trading-context';

/** ListTrades: an account's deals (closed positions), oldest first. */
export function listTrades(markets: Markets, cursors: CursorCodec, req: AccountPageRequest): Promise<Page<Deal>> {
  return accountPage(markets, cursors, { name: 'trades' }, req, (ctx, number, after, limit) => listDeals(ctx.sequelize, number, after, limit));
}
