import { effectTransaction, notFound } from '@propdesk/kit';
import type { Deps } from '../deps';
import { requireOrganization } from './require-organization';

/** Soft delete; a second delete, or another organization's endpoint, is not_found. */
export async function deleteEndpoint(deps: Deps, input: { organizationId: string; endpointId: string }): Promise<void> {
  const organizationId = requireOrganization(input.organizationId);
  await effectTransaction(deps.db, async (transaction) => {
    if (!(await deps.endpoints.softDelete(organizationId, input.endpointId, transaction))) throw notFound('webhook endpoint');
  });
  deps.logger.info({ endpointId: input.endpointId, organizationId }, 'webhook endpoint deleted');
}
