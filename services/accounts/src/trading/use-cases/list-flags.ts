import type { CursorCodec } from '@propdesk/kit';
import { listFlags as listFlagRows, type Flag } from '../data/flags';
import { accountPage, type AccountPageRequest, type Page } from './account-pages';
import type { Markets } from './trading-context';

/** ListFlags: what the rules found on an account (flags and the breach), oldest first. */
export function listFlags(markets: Markets, cursors: CursorCodec, req: AccountPageRequest): Promise<Page<Flag>> {
  return accountPage(markets, cursors, { name: 'flags' }, req, (ctx, number, after, limit) => listFlagRows(ctx.sequelize, number, after, limit));
}
