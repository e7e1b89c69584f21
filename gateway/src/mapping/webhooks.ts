import {
  restDeliveryAcceptedSchema,
  restDeliverySchema,
  restWebhookDeletedSchema,
  restWebhookSchema,
  restWebhookRecoveredSchema,
  restWebhookSecretSchema,
  restWebhookUpdatedSchema,
  restWebhookWithSecretSchema,
} from '@propdesk/kit';
import { pageSchema } from './common';

/** The shapes and mappers are the kit's (one definition for the gateway and the panel); named here for the document. */
export { DELIVERY_STATUS_NAMES, deliveryStatusFilter, toRestDelivery, toRestEndpoint, type RestDelivery, type RestEndpoint } from '@propdesk/kit';

export const webhookSchema = restWebhookSchema.openapi('Webhook');
export const webhookWithSecretSchema = restWebhookWithSecretSchema.openapi('WebhookWithSecret');
export const webhookSecretSchema = restWebhookSecretSchema.openapi('WebhookSecret');
export const webhookUpdatedSchema = restWebhookUpdatedSchema.openapi('WebhookUpdated');
export const webhookRecoveredSchema = restWebhookRecoveredSchema.openapi('WebhookRecovered');
export const deliverySchema = restDeliverySchema.openapi('Delivery');
export const webhookPageSchema = pageSchema(webhookSchema).openapi('WebhookPage');
export const deliveryPageSchema = pageSchema(deliverySchema).openapi('DeliveryPage');
export const webhookDeletedSchema = restWebhookDeletedSchema.openapi('WebhookDeleted');
export const deliveryAcceptedSchema = restDeliveryAcceptedSchema.openapi('DeliveryAccepted');
