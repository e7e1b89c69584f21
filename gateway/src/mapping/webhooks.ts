import { webhooksv1 } from '@propdesk/proto';
import { AppError, EVENT_TYPES } from '@propdesk/kit';
import { z } from '../http/zod';
import { iso, isoOrNull, pageSchema, stringOrNull } from './common';

const endpointFields = {
  id: z.string(),
  url: z.string().url(),
  events: z.array(z.enum(EVENT_TYPES)).describe('empty: every event type'),
  status: z.enum(['enabled', 'disabled']),
  created_at: z.string().datetime(),
};

export const webhookSchema = z.object(endpointFields).strict().openapi('Webhook');
export type RestEndpoint = z.output<typeof webhookSchema>;

export const webhookWithSecretSchema = z
  .object({
    ...endpointFields,
    secret: z.string().describe('shown once, at registration'),
    warnings: z
      .array(z.string())
      .describe("registered, but deliveries will not arrive as things stand: e.g. a port the deployment's egress does not allow (WEBHOOK_EGRESS_PORTS, 443 by default); empty when none"),
  })
  .strict()
  .openapi('WebhookWithSecret');

export const webhookSecretSchema = z
  .object({ id: z.string(), secret: z.string().describe('the new secret (whsec_ + base64 of 32 random bytes), shown once') })
  .strict()
  .openapi('WebhookSecret');

export function toRestEndpoint(endpoint: webhooksv1.Endpoint | undefined): RestEndpoint {
  if (endpoint === undefined) throw new AppError('internal_error', 'the service answered without an endpoint');
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events as RestEndpoint['events'],
    status: endpoint.status === webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED ? 'disabled' : 'enabled',
    created_at: iso(endpoint.createdAt),
  };
}

export const DELIVERY_STATUS_NAMES = ['pending', 'succeeded', 'failed'] as const;
type DeliveryStatusName = (typeof DELIVERY_STATUS_NAMES)[number];

const DELIVERY_STATUSES: Record<DeliveryStatusName, webhooksv1.DeliveryStatus> = {
  pending: webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

export function deliveryStatusFilter(value: DeliveryStatusName | undefined): webhooksv1.DeliveryStatus {
  return value === undefined ? webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED : DELIVERY_STATUSES[value];
}

export const deliverySchema = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES),
    attempt: z.number().int().min(0),
    status: z.enum(DELIVERY_STATUS_NAMES),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    next_attempt_at: z.string().datetime().nullable(),
    created_at: z.string().datetime(),
  })
  .strict()
  .openapi('Delivery');
export type RestDelivery = z.output<typeof deliverySchema>;

export function toRestDelivery(delivery: webhooksv1.Delivery): RestDelivery {
  const status = (Object.keys(DELIVERY_STATUSES) as DeliveryStatusName[]).find((name) => DELIVERY_STATUSES[name] === delivery.status) ?? 'pending';
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType as RestDelivery['event_type'],
    attempt: delivery.attempt,
    status,
    response_status: delivery.responseStatus === 0 ? null : delivery.responseStatus,
    error: stringOrNull(delivery.error),
    duration_ms: delivery.attempt === 0 ? null : delivery.durationMs,
    next_attempt_at: isoOrNull(delivery.nextAttemptAt),
    created_at: iso(delivery.createdAt),
  };
}

export const webhookPageSchema = pageSchema(webhookSchema).openapi('WebhookPage');
export const deliveryPageSchema = pageSchema(deliverySchema).openapi('DeliveryPage');
export const webhookDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).strict().openapi('WebhookDeleted');
export const deliveryAcceptedSchema = z.object({ delivery_id: z.string(), event_id: z.string() }).strict().openapi('DeliveryAccepted');
