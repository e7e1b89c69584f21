import { cursorScope, pageSize, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { requireScope } from './require-scope';

export async function listEndpoints(
  deps: Deps,
  input: ScopeFields & { pageSize?: number; pageToken?: string },
): Promise<{ endpoints: EndpointRecord[]; nextPageToken: string }> {
  const scope = requireScope(input);
  const limit = pageSize(input.pageSize);
  const cursor = `endpoints:${cursorScope(scope)}`;
  const after = input.pageToken ? deps.cursors.decode<{ s: number }>(cursor, input.pageToken).s : 0;
  const rows = await deps.endpoints.list(scope, Number(after) || 0, limit + 1);
  const page = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? deps.cursors.encode(cursor, { s: page[page.length - 1].seq }) : '';
  return { endpoints: page, nextPageToken };
}
