import { effectTransaction, notFound, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import { requireScope } from './require-scope';

/** Soft delete; a second delete, or another organization's or mode's endpoint, is not_found. */
export async function deleteEndpoint(deps: Deps, input: ScopeFields & { endpointId: string }): Promise<void> {
  const scope = requireScope(input);
  await effectTransaction(deps.db, async (transaction) => {
    if (!(await deps.endpoints.softDelete(scope, input.endpointId, transaction))) throw notFound('webhook endpoint');
  });
  deps.logger.info({ endpointId: input.endpointId, organizationId: scope.organizationId }, 'webhook endpoint deleted');
}
