import { AppError, effectTransaction, notFound, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import { validateRecoverSince } from '../domain/endpoint-rules';
import { endpointAudit } from './endpoint-audit';
import { requireScope } from './require-scope';

/**
 * POST /v1/webhooks/{id}/recover (SPEC 17): after an outage of the receiver, every delivery of the
 * endpoint shown as failed whose last attempt was at or after `since` is attempted again, each with
 * a fresh retry budget, in one statement. Calling it again while they are pending again finds none
 * (redelivered 0). A disabled endpoint is enabled first (as for one retry), so recovering cannot
 * start deliveries nobody asked for.
 */
export async function recoverFailedDeliveries(
  deps: Deps,
  input: ScopeFields & { endpointId: string; since?: Date },
): Promise<{ redelivered: number }> {
  const scope = requireScope(input);
  const since = validateRecoverSince(input.since, deps.clock());
  const recovered = await effectTransaction(deps.db, async (transaction) => {
    const endpoint = await deps.endpoints.find(scope, input.endpointId, transaction);
    if (!endpoint) throw notFound('webhook endpoint');
    if (endpoint.status !== 'enabled') throw new AppError('conflict', 'the endpoint is disabled; enable it first (enable can redeliver what it missed)');
    const redelivered = await deps.deliveries.recoverSince(endpoint.id, since, transaction);
    // What it changed: that many failed deliveries pending again (none found: nothing changed, no entry).
    if (redelivered > 0) await recordAudit(transaction, endpointAudit(endpoint, 'webhook.recover', { since: [null, since], redelivered: [0, redelivered] }));
    return { redelivered };
  });
  deps.logger.info({ endpointId: input.endpointId, organizationId: scope.organizationId, since, redelivered: recovered.redelivered }, 'failed deliveries recovered');
  return recovered;
}
