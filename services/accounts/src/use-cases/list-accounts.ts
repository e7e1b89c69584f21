import { AppError, cursorScope, pageSize, type ScopeFields, type TenantScope } from '@propdesk/kit';
import { keysetShape, listAccounts as listAccountRows, listAccountsJson, type AccountFilter, type PageQuery } from '../data/account-listing';
import type { AccountSummary } from '../domain/account';
import { tenantScope, uuidParam } from '../domain/validation';
import type { AccountsDeps } from '../deps';

export interface ListAccountsInput extends ScopeFields {
  pageSize: number;
  pageToken: string;
  filter: AccountFilter;
}

/** The cursor scope binds organization, mode, list and filters: a cursor of any other list is invalid_cursor. */
function scopeOf(tenant: TenantScope, filter: AccountFilter): string {
  return `accounts:${cursorScope(tenant)}:${filter.status ?? '*'}:${filter.assigned === undefined ? '*' : String(filter.assigned)}:${filter.traderId ?? '*'}`;
}

interface PagePosition {
  tenant: TenantScope;
  filter: AccountFilter;
  size: number;
  scope: string;
  after: number;
}

function pagePosition(deps: AccountsDeps, input: ListAccountsInput): PagePosition {
  const tenant = tenantScope(input);
  const filter: AccountFilter = { ...input.filter };
  if (filter.traderId !== undefined) filter.traderId = uuidParam(filter.traderId, 'trader_id');
  const size = pageSize(input.pageSize);
  const scope = scopeOf(tenant, filter);
  let after = 0;
  if (input.pageToken) {
    const position = deps.cursors.decode<{ n?: unknown }>(scope, input.pageToken);
    if (typeof position?.n !== 'number' || !Number.isSafeInteger(position.n)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = position.n;
  }
  return { tenant, filter, size, scope, after };
}

/** Keyset paging by account number: accounts created while paging neither repeat nor vanish. */
export async function listAccounts(deps: AccountsDeps, input: ListAccountsInput): Promise<{ accounts: AccountSummary[]; nextPageToken: string }> {
  const { tenant, filter, size, scope, after } = pagePosition(deps, input);
  const rows = await listAccountRows(deps.sequelize, tenant, filter, after, size + 1);
  const accounts = rows.slice(0, size);
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, { n: accounts[accounts.length - 1].number }) : '';
  return { accounts, nextPageToken };
}

export interface JsonPage {
  json: string;
  nextPageToken: string;
}

/** One page of a batch: the page, or the error that request alone would have failed with. */
export type JsonPageResult = { ok: true; page: JsonPage } | { ok: false; error: unknown };

/** Pages per statement: PostgreSQL renders one statement's pages one after another, on one core. */
const PAGES_PER_STATEMENT = 6;

function pageQuery(position: PagePosition): PageQuery {
  return { scope: position.tenant, filter: position.filter, after: position.after, shown: position.size };
}

/**
 * Pages as the REST JSON rendered by the database (ListAccountsRequest.json_view), for any
 * number of requests at once: each is validated on its own, and the valid ones of one shape
 * (filters present), whatever their organizations and modes, share statements of up to
 * PAGES_PER_STATEMENT pages that run side by side on the pool's connections. Results are in the
 * order of `inputs`; a request's error is its result, not the batch's.
 */
export async function listAccountPagesAsJson(deps: AccountsDeps, inputs: ListAccountsInput[]): Promise<JsonPageResult[]> {
  const results: JsonPageResult[] = new Array(inputs.length);
  const groups = new Map<string, Array<{ index: number; position: PagePosition }>>();
  inputs.forEach((input, index) => {
    try {
      const position = pagePosition(deps, input);
      const shape = keysetShape(position.filter);
      const group = groups.get(shape);
      if (group) group.push({ index, position });
      else groups.set(shape, [{ index, position }]);
    } catch (error) {
      results[index] = { ok: false, error };
    }
  });
  const statements = [...groups.values()].flatMap((group) =>
    Array.from({ length: Math.ceil(group.length / PAGES_PER_STATEMENT) }, (_v, i) => group.slice(i * PAGES_PER_STATEMENT, (i + 1) * PAGES_PER_STATEMENT)),
  );
  await Promise.all(
    statements.map(async (group) => {
      try {
        const pages = await listAccountsJson(deps.sequelize, group.map(({ position: p }) => pageQuery(p)));
        group.forEach(({ index, position }, i) => {
          const page = pages[i];
          const nextPageToken =
            page.found > position.size && page.lastNumber !== null ? deps.cursors.encode(position.scope, { n: page.lastNumber }) : '';
          results[index] = { ok: true, page: { json: page.json, nextPageToken } };
        });
      } catch (error) {
        for (const { index } of group) results[index] = { ok: false, error };
      }
    }),
  );
  return results;
}

/** One page, as the REST JSON rendered by the database (ListAccountsRequest.json_view). */
export async function listAccountsAsJson(deps: AccountsDeps, input: ListAccountsInput): Promise<JsonPage> {
  const [result] = await listAccountPagesAsJson(deps, [input]);
  if (!result.ok) throw result.error;
  return result.page;
}
