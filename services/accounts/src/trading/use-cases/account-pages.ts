import { AppError, cursorScope, pageSize, type CursorCodec, type ScopeFields } from '@propdesk/kit';
import { parseAccountNumber, parseScope } from '../core-port';
import { requireAccount } from './account-access';
import type { Markets, TradingContext } from './trading-context';

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

export interface AccountPageRequest extends ScopeFields {
  number: string;
  pageSize?: number;
  pageToken?: string;
}

/**
 * One page of a list that belongs to an account (positions, trades, flags, payouts): the account
 * must be of the organization and mode; keyset paging on seq, with a cursor whose scope binds
 * organization, mode, account, list and filter.
 */
export async function accountPage<T extends { seq: number }>(
  markets: Markets,
  cursors: CursorCodec,
  list: { name: string; filter?: string },
  req: AccountPageRequest,
  fetch: (ctx: TradingContext, accountNumber: number, afterSeq: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const tenant = parseScope(req);
  const number = parseAccountNumber(req.number);
  const ctx = await (await markets.of(tenant, number, 'read')).context();
  await requireAccount(ctx, tenant, number);
  const scope = `${list.name}:${cursorScope(tenant)}:${number}${list.filter === undefined ? '' : `:${list.filter}`}`;
  const limit = pageSize(req.pageSize);
  let afterSeq = 0;
  if (req.pageToken) {
    const position = cursors.decode<{ s?: unknown }>(scope, req.pageToken);
    if (typeof position?.s !== 'number' || !Number.isSafeInteger(position.s)) throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    afterSeq = position.s;
  }
  const rows = await fetch(ctx, number, afterSeq, limit + 1);
  const items = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? cursors.encode(scope, { s: items[items.length - 1].seq }) : '';
  return { items, nextPageToken };
}
