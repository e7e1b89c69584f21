import { AppError, effectTransaction, notFound, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/** One more attempt now, with the delivery's original event id and body. */
export async function retryDelivery(
  deps: Deps,
  input: ScopeFields & { endpointId: string; deliveryId: string },
): Promise<{ deliveryId: string; eventId: string }> {
  const scope = requireScope(input);
  return effectTransaction(deps.db, async (transaction) => {
    const endpoint = await deps.endpoints.find(scope, input.endpointId, transaction);
    if (!endpoint) throw notFound('webhook endpoint');
    const delivery = await deps.deliveries.find(endpoint.id, input.deliveryId, transaction);
    if (!delivery) throw notFound('delivery');
    if (endpoint.status !== 'enabled') throw new AppError('conflict', 'the endpoint is disabled; enable it first');
    await deps.deliveries.scheduleNow(delivery.id, deps.retryScheduleSeconds.length, transaction);
    await recordAudit(transaction, endpointAudit(endpoint, 'webhook.retry', { delivery_id: [null, delivery.id], delivery_status: [delivery.status, 'pending'] }));
    return { deliveryId: delivery.id, eventId: delivery.eventId };
  });
}
