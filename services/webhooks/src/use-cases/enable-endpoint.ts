import { effectTransaction, notFound, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/**
 * Re-enables an endpoint (enabling an enabled one is harmless). With `redeliverSince`, the
 * deliveries that failed or were skipped while it was down since then get a fresh retry budget.
 */
export async function enableEndpoint(
  deps: Deps,
  input: ScopeFields & { endpointId: string; redeliverSince?: Date },
): Promise<{ endpoint: EndpointRecord; rescheduled: number }> {
  const scope = requireScope(input);
  return effectTransaction(deps.db, async (transaction) => {
    const existing = await deps.endpoints.find(scope, input.endpointId, transaction);
    if (!existing) throw notFound('webhook endpoint');
    const endpoint = await deps.endpoints.setEnabled(existing.id, transaction);
    const rescheduled = input.redeliverSince ? await deps.deliveries.rescheduleSince(existing.id, input.redeliverSince, transaction) : 0;
    if (existing.status !== 'enabled' || rescheduled > 0) {
      await recordAudit(transaction, endpointAudit(endpoint, 'webhook.enable', {
        status: [existing.status, endpoint.status],
        ...(rescheduled > 0 ? { redelivered: [0, rescheduled] } : {}),
      }));
      deps.logger.info({ endpointId: existing.id, organizationId: scope.organizationId, rescheduled }, 'webhook endpoint enabled');
    }
    return { endpoint, rescheduled };
  });
}
