import { notFound } from '@propdesk/kit';
import type { Deps } from '../deps';
import { requireOrganization } from './require-organization';

/** Soft delete; a second delete, or another organization's endpoint, is not_found. */
export async function deleteEndpoint(deps: Deps, input: { organizationId: string; endpointId: string }): Promise<void> {
  const organizationId = requireOrganization(input.organizationId);
  const deleted = await deps.endpoints.softDelete(organizationId, input.endpointId);
  if (!deleted) throw notFound('webhook endpoint');
  deps.logger.info({ endpointId: input.endpointId, organizationId }, 'webhook endpoint deleted');
}
