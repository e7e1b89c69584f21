import { AppError, effectTransaction, isEventType, newEventId, notFound, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import { sampleData, serializeEnvelope } from '../domain/envelope';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/**
 * A signed sample event of the real envelope shape: the endpoint's first subscribed type (or
 * account.created), the caller's organization id and the endpoint's mode, synthetic data marked `test: true` (sampleData:
 * nothing of any real account), a fresh evt_ id; delivered and recorded like any other.
 */
export async function sendTestEvent(deps: Deps, input: ScopeFields & { endpointId: string }): Promise<{ deliveryId: string; eventId: string }> {
  const scope = requireScope(input);
  return effectTransaction(deps.db, async (transaction) => {
    const endpoint = await deps.endpoints.find(scope, input.endpointId, transaction);
    if (!endpoint) throw notFound('webhook endpoint');
    if (endpoint.status !== 'enabled') throw new AppError('conflict', 'the endpoint is disabled; enable it first');
    const subscribed = endpoint.events[0];
    const type = subscribed !== undefined && isEventType(subscribed) ? subscribed : 'account.created';
    const eventId = newEventId();
    const createdAt = new Date();
    const body = serializeEnvelope({
      id: eventId,
      type,
      created_at: createdAt.toISOString(),
      organization_id: scope.organizationId,
      livemode: endpoint.livemode,
      // Account 0 is no account: a test event takes no place in any account's events.
      sequence: null,
      data: sampleData(type),
    });
    const deliveryId = await deps.deliveries.insertTest({ endpointId: endpoint.id, eventId, eventType: type, scope, body, createdAt }, transaction);
    await recordAudit(transaction, endpointAudit(endpoint, 'webhook.test', { delivery_id: [null, deliveryId], event_id: [null, eventId], event_type: [null, type] }));
    return { deliveryId, eventId };
  });
}
