import { webhooksv1 } from '@propdesk/proto';
import { AppError } from '@propdesk/kit';
import { iso, isoOrNull, stringOrNull } from './common';

export interface RestEndpoint {
  id: string;
  url: string;
  events: string[];
  status: 'enabled' | 'disabled';
  created_at: string;
}

export function toRestEndpoint(endpoint: webhooksv1.Endpoint | undefined): RestEndpoint {
  if (endpoint === undefined) throw new AppError('internal_error', 'the service answered without an endpoint');
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.status === webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED ? 'disabled' : 'enabled',
    created_at: iso(endpoint.createdAt),
  };
}

type DeliveryStatusName = 'pending' | 'succeeded' | 'failed';

const DELIVERY_STATUSES: Record<DeliveryStatusName, webhooksv1.DeliveryStatus> = {
  pending: webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

export function deliveryStatusFilter(value: string | undefined): webhooksv1.DeliveryStatus {
  if (value === undefined) return webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED;
  if (!Object.prototype.hasOwnProperty.call(DELIVERY_STATUSES, value)) {
    throw new AppError('invalid_request', 'status must be one of pending, succeeded, failed', 'status');
  }
  return DELIVERY_STATUSES[value as DeliveryStatusName];
}

export interface RestDelivery {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatusName;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export function toRestDelivery(delivery: webhooksv1.Delivery): RestDelivery {
  const status = (Object.keys(DELIVERY_STATUSES) as DeliveryStatusName[]).find((name) => DELIVERY_STATUSES[name] === delivery.status) ?? 'pending';
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    attempt: delivery.attempt,
    status,
    response_status: delivery.responseStatus === 0 ? null : delivery.responseStatus,
    error: stringOrNull(delivery.error),
    duration_ms: delivery.attempt === 0 ? null : delivery.durationMs,
    next_attempt_at: isoOrNull(delivery.nextAttemptAt),
    created_at: iso(delivery.createdAt),
  };
}
