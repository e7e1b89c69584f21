import { AppError, cursorScope, isUuid, livemodeOf, pageSize, type Mode } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';

interface Position {
  s: string;
}

/**
 * One mode's keys (SPEC 13: the panel shows the partition it is switched to), keyset-paged in
 * creation order: keys created while paging appear at the end, none repeats.
 */
export async function listApiKeys(
  deps: Pick<AuthDeps, 'apiKeys' | 'cursors'>,
  input: { organizationId: string; mode?: Mode; pageSize: number; pageToken: string },
): Promise<{ apiKeys: ApiKeyRecord[]; nextPageToken: string }> {
  const limit = pageSize(input.pageSize);
  const tenant = { organizationId: (input.organizationId ?? '').toLowerCase(), livemode: livemodeOf(input.mode) };
  const scope = `api_keys:${cursorScope(tenant)}`;
  let after = '0';
  if (input.pageToken) {
    const position = deps.cursors.decode<Position>(scope, input.pageToken);
    if (typeof position?.s !== 'string' || !/^\d{1,19}$/.test(position.s)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = position.s;
  }
  // an unknown organization simply has no keys; a non-uuid one cannot have any either
  if (!isUuid(tenant.organizationId)) return { apiKeys: [], nextPageToken: '' };
  const rows = await deps.apiKeys.listPage(tenant, after, limit + 1);
  const page = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? deps.cursors.encode(scope, { s: page[page.length - 1].listSeq } satisfies Position) : '';
  return { apiKeys: page, nextPageToken };
}
