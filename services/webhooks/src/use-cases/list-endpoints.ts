import { pageSize } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { requireOrganization } from './require-organization';

export async function listEndpoints(
  deps: Deps,
  input: { organizationId: string; pageSize?: number; pageToken?: string },
): Promise<{ endpoints: EndpointRecord[]; nextPageToken: string }> {
  const organizationId = requireOrganization(input.organizationId);
  const limit = pageSize(input.pageSize);
  const scope = `endpoints:${organizationId}`;
  const after = input.pageToken ? deps.cursors.decode<{ s: number }>(scope, input.pageToken).s : 0;
  const rows = await deps.endpoints.list(organizationId, Number(after) || 0, limit + 1);
  const page = rows.slice(0, limit);
  const nextPageToken = rows.length > limit ? deps.cursors.encode(scope, { s: page[page.length - 1].seq }) : '';
  return { endpoints: page, nextPageToken };
}
