import { webhooksv1 } from '@propdesk/proto';
import { z } from 'zod';
import { EVENT_TYPES } from '../events';
import { textSchema, type TextRule } from '../text';
import { isoTime, isoTimeOrNull, livemodeSchema, present, textOrNull } from './common';

/** An endpoint's description: one line of free text (the kit's text rule), at most 256 characters. */
export const ENDPOINT_DESCRIPTION_RULE: TextRule = { max: 256 };

/** The description as a request field (registration, PATCH, the panel's form). */
export const endpointDescriptionSchema = () =>
  textSchema(ENDPOINT_DESCRIPTION_RULE).describe(`what the endpoint is for: 1 to ${ENDPOINT_DESCRIPTION_RULE.max} characters, one line, taken exactly as sent`);

/**
 * Webhook endpoints and deliveries in their REST shape (SPEC sections 7 and 8), written once for
 * the gateway (which documents the schemas) and the panel (which shows what the API shows).
 */

const endpointFields = {
  id: z.string(),
  url: z.string().url(),
  description: z.string().nullable().describe("the owner's note on what the endpoint is for; null when none"),
  events: z.array(z.enum(EVENT_TYPES)).describe('empty: every event type'),
  status: z.enum(['enabled', 'disabled']),
  created_at: z.string().datetime(),
  livemode: livemodeSchema.describe('the mode of the key that registered it: it receives only events of that mode'),
};

export const restWebhookSchema = z.object(endpointFields).strict();
export type RestEndpoint = z.output<typeof restWebhookSchema>;

const warnings = z
  .array(z.string())
  .describe("registered, but deliveries will not arrive as things stand: e.g. a port the deployment's egress does not allow (WEBHOOK_EGRESS_PORTS, 443 by default); empty when none");

export const restWebhookWithSecretSchema = z
  .object({
    ...endpointFields,
    secret: z.string().describe('shown once, at registration'),
    warnings,
  })
  .strict();

/** PATCH's answer (SPEC 17): the endpoint without its secret, and registration's warnings for its url as it now is. */
export const restWebhookUpdatedSchema = z.object({ ...endpointFields, warnings }).strict();

/** recover's answer (SPEC 17). */
export const restWebhookRecoveredSchema = z
  .object({ redelivered: z.number().int().min(0).describe('how many failed deliveries are attempted again') })
  .strict();

/** A rotated secret (SPEC section 12), shown once. */
export const restWebhookSecretSchema = z
  .object({ id: z.string(), secret: z.string().describe('the new secret (whsec_ + base64 of 32 random bytes), shown once') })
  .strict();

export function toRestEndpoint(message: webhooksv1.Endpoint | undefined): RestEndpoint {
  const endpoint = present(message, 'an endpoint');
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: textOrNull(endpoint.description),
    events: endpoint.events as RestEndpoint['events'],
    status: endpoint.status === webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED ? 'disabled' : 'enabled',
    created_at: isoTime(endpoint.createdAt),
    livemode: endpoint.livemode,
  };
}

export const DELIVERY_STATUS_NAMES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatusName = (typeof DELIVERY_STATUS_NAMES)[number];

const DELIVERY_STATUSES: Record<DeliveryStatusName, webhooksv1.DeliveryStatus> = {
  pending: webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: webhooksv1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: webhooksv1.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

export function deliveryStatusFilter(value: DeliveryStatusName | undefined): webhooksv1.DeliveryStatus {
  return value === undefined ? webhooksv1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED : DELIVERY_STATUSES[value];
}

export const restDeliverySchema = z
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
  .strict();
export type RestDelivery = z.output<typeof restDeliverySchema>;

export function toRestDelivery(delivery: webhooksv1.Delivery): RestDelivery {
  const status = (Object.keys(DELIVERY_STATUSES) as DeliveryStatusName[]).find((name) => DELIVERY_STATUSES[name] === delivery.status) ?? 'pending';
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType as RestDelivery['event_type'],
    attempt: delivery.attempt,
    status,
    response_status: delivery.responseStatus === 0 ? null : delivery.responseStatus,
    error: textOrNull(delivery.error),
    duration_ms: delivery.attempt === 0 ? null : delivery.durationMs,
    next_attempt_at: isoTimeOrNull(delivery.nextAttemptAt),
    created_at: isoTime(delivery.createdAt),
  };
}

export const restWebhookDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).strict();
export const restDeliveryAcceptedSchema = z.object({ delivery_id: z.string(), event_id: z.string() }).strict();
