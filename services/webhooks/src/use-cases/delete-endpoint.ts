import { effectTransaction, notFound, recordAudit, removedFields, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/** Soft delete; a second delete, or another organization's or mode's endpoint, is not_found. */
export async function deleteEndpoint(deps: Deps, input: ScopeFields & { endpointId: string }): Promise<void> {
  const scope = requireScope(input);
  await effectTransaction(deps.db, async (transaction) => {
    const endpoint = await deps.endpoints.find(scope, input.endpointId, transaction);
    if (!endpoint || !(await deps.endpoints.softDelete(scope, endpoint.id, transaction))) throw notFound('webhook endpoint');
    await recordAudit(transaction, endpointAudit(endpoint, 'webhook.delete', removedFields({ url: endpoint.url, events: endpoint.events, status: endpoint.status })));
  });
  deps.logger.info({ endpointId: input.endpointId, organizationId: scope.organizationId }, 'webhook endpoint deleted');
}
