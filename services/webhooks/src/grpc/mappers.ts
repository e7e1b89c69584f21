import { webhooksv1 } from '@propdesk/proto';
import type { DeliveryRecord } from '../data/deliveries-repository';
import type { EndpointRecord } from '../data/endpoints-repository';
import type { DeliveryStatusFilter } from '../use-cases/list-deliveries';

export function endpointToProto(endpoint: EndpointRecord): webhooksv1.Endpoint {
  return {
    id: endpoint.id,
    organizationId: endpoint.organizationId,
    url: endpoint.url,
    description: endpoint.description ?? '',
    events: endpoint.events,
    status: endpoint.status === 'enabled' ? webhooksv1.EndpointStatus.ENDPOINT_STATUS_ENABLED : webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED,
    createdAt: endpoint.createdAt,
    livemode: endpoint.livemode,
  };
}

const DELIVERY_STATUS: Record<DeliveryRecord['status'], webhooksv1.DeliveryStatus> = {
  pending: webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED,
  skipped: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

export function deliveryToProto(delivery: DeliveryRecord): webhooksv1.Delivery {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    status: DELIVERY_STATUS[delivery.status],
    responseStatus: delivery.responseStatus ?? 0,
    error: delivery.error ?? '',
    durationMs: delivery.durationMs ?? 0,
    nextAttemptAt: delivery.nextAttemptAt ?? undefined,
    createdAt: delivery.createdAt,
  };
}

export function statusFilterFromProto(status: webhooksv1.DeliveryStatus): DeliveryStatusFilter | undefined {
  switch (status) {
    case webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING:
      return 'pending';
    case webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED:
      return 'succeeded';
    case webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED:
      return 'failed';
    default:
      return undefined;
  }
}
