import { AppError, pageSize } from '@propdesk/kit';
import { listAccounts as listAccountRows, listAccountsJson, type AccountFilter } from '../data/accounts';
import type { AccountSummary } from '../domain/account';
import { organizationId, uuidParam } from '../domain/validation';
import type { AccountsDeps } from '../deps';

export interface ListAccountsInput {
  organizationId: string;
  pageSize: number;
  pageToken: string;
  filter: AccountFilter;
}

/** The cursor scope binds organization, list and filters: a cursor of any other list is invalid_cursor. */
function scopeOf(org: string, filter: AccountFilter): string {
  return `accounts:${org}:${filter.status ?? '*'}:${filter.assigned === undefined ? '*' : String(filter.assigned)}:${filter.traderId ?? '*'}`;
}

interface PagePosition {
  org: string;
  filter: AccountFilter;
  size: number;
  scope: string;
  after: number;
}

function pagePosition(deps: AccountsDeps, input: ListAccountsInput): PagePosition {
  const org = organizationId(input.organizationId);
  const filter: AccountFilter = { ...input.filter };
  if (filter.traderId !== undefined) filter.traderId = uuidParam(filter.traderId, 'trader_id');
  const size = pageSize(input.pageSize);
  const scope = scopeOf(org, filter);
  let after = 0;
  if (input.pageToken) {
    const position = deps.cursors.decode<{ n?: unknown }>(scope, input.pageToken);
    if (typeof position?.n !== 'number' || !Number.isSafeInteger(position.n)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = position.n;
  }
  return { org, filter, size, scope, after };
}

/** Keyset paging by account number: accounts created while paging neither repeat nor vanish. */
export async function listAccounts(deps: AccountsDeps, input: ListAccountsInput): Promise<{ accounts: AccountSummary[]; nextPageToken: string }> {
  const { org, filter, size, scope, after } = pagePosition(deps, input);
  const rows = await listAccountRows(deps.sequelize, org, filter, after, size + 1);
  const accounts = rows.slice(0, size);
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, { n: accounts[accounts.length - 1].number }) : '';
  return { accounts, nextPageToken };
}

/** The same page, as the REST JSON rendered by the database (ListAccountsRequest.json_view). */
export async function listAccountsAsJson(deps: AccountsDeps, input: ListAccountsInput): Promise<{ json: string; nextPageToken: string }> {
  const { org, filter, size, scope, after } = pagePosition(deps, input);
  const page = await listAccountsJson(deps.sequelize, org, filter, after, size);
  const nextPageToken = page.found > size && page.lastNumber !== null ? deps.cursors.encode(scope, { n: page.lastNumber }) : '';
  return { json: page.json, nextPageToken };
}
