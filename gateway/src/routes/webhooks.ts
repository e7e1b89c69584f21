import { ENDPOINT_DESCRIPTION_RULE, EVENT_TYPES, endpointDescriptionSchema, OVERLAP_SECONDS } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, idPath, objectBody, pageOf, pageQuery, rfc3339Time } from '../http/validation';
import { z } from '../http/zod';
import { page } from '../mapping/common';
import {
  DELIVERY_STATUS_NAMES,
  deliveryAcceptedSchema,
  deliveryPageSchema,
  deliveryStatusFilter,
  toRestDelivery,
  toRestEndpoint,
  webhookDeletedSchema,
  webhookPageSchema,
  webhookRecoveredSchema,
  webhookSchema,
  webhookSecretSchema,
  webhookUpdatedSchema,
  webhookWithSecretSchema,
} from '../mapping/webhooks';

const TAG = 'Webhooks';
const webhookPath = { id: idPath('webhook', 'webhook endpoint id') };

const enableBody = objectBody({
  redeliver_since: rfc3339Time('redeliver_since')
    .optional()
    .openapi({ description: 'deliveries that failed or were skipped since then are scheduled again' }),
}).openapi('EnableWebhookRequest');

/** The scheme check, as the server applies it and the document states it (schemes are case-insensitive). */
const HTTPS_SCHEME_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]://';
const HTTPS_SCHEME = new RegExp(HTTPS_SCHEME_PATTERN);

const overlapMessage = `must be an integer from ${OVERLAP_SECONDS.min} to ${OVERLAP_SECONDS.max} (seconds)`;
const rotateBody = objectBody({
  previous_expires_in: z
    .number({ invalid_type_error: overlapMessage })
    .int(overlapMessage)
    .min(OVERLAP_SECONDS.min, overlapMessage)
    .max(OVERLAP_SECONDS.max, overlapMessage)
    .default(OVERLAP_SECONDS.default)
    .openapi({ description: 'seconds the previous secret keeps signing beside the new one; 0 ends it at once' }),
}).openapi('RotateWebhookSecretRequest');

const endpointUrl = z
  .string()
  .max(2048)
  .url()
  .regex(HTTPS_SCHEME, 'must be an HTTPS URL')
  .openapi({
    pattern: HTTPS_SCHEME_PATTERN,
    description:
      'HTTPS only (the scheme in any letter case); stored and answered as the URL parser normalises it (https://example.com/x for HTTPS://Example.COM/x). Unless private networks are allowed, loopback, private, link-local and reserved addresses in any notation, localhost and *.localhost, .internal, .local, .localdomain, .home.arpa, .invalid and single-label names are refused. Whitespace and control characters are refused, not stripped.',
  });
const endpointEvents = z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length);
const endpointDescription = endpointDescriptionSchema()
  .nullable()
  .openapi({ maxLength: ENDPOINT_DESCRIPTION_RULE.max, description: `what the endpoint is for (one line, at most ${ENDPOINT_DESCRIPTION_RULE.max} characters, taken exactly as sent); null: none` });

const endpointBody = objectBody({
  url: endpointUrl,
  events: endpointEvents.default([]).openapi({ description: 'empty: every event type' }),
  description: endpointDescription.optional(),
}).openapi('WebhookRequest');

const UPDATABLE = ['url', 'events', 'description'] as const;
const updateBody = objectBody({
  url: endpointUrl.optional(),
  events: endpointEvents.optional().openapi({ description: 'empty: every event type' }),
  description: endpointDescription.optional(),
})
  .strict()
  .refine((body) => UPDATABLE.some((field) => body[field] !== undefined), `name at least one of ${UPDATABLE.join(', ')}`)
  .openapi('UpdateWebhookRequest', { minProperties: 1, description: 'the fields to change; a field left out keeps its value; an unknown field is refused' });

const recoverBody = objectBody({
  since: rfc3339Time('since').openapi({
    description: 'failed deliveries whose last attempt was at or after this time are attempted again: not in the future, at most 14 days ago',
  }),
})
  .strict()
  .openapi('RecoverWebhookRequest');

export const webhookRoutes = [
  route({
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    summary: 'Register an HTTPS endpoint (the secret is shown once)',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    body: endpointBody,
    responses: { 201: webhookWithSecretSchema },
    errors: ['invalid_request'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.webhooks.call.createEndpoint(
        { ...tenantOf(req), url: body.url, events: [...new Set(body.events)], description: body.description ?? undefined },
        opts,
      );
      return renderJson(201, { ...toRestEndpoint(response.endpoint), secret: response.secret, warnings: response.warnings });
    },
  }),

  route({
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    query: pageQuery,
    responses: { 200: webhookPageSchema },
    errors: ['invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.webhooks.call.listEndpoints({ ...tenantOf(req), ...pageOf(query) }, opts);
      return renderJson(200, page(response.endpoints.map(toRestEndpoint), response.nextPageToken));
    },
  }),

  route({
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete an endpoint',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    responses: { 200: webhookDeletedSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      await clients.webhooks.call.deleteEndpoint({ ...tenantOf(req), endpointId: params.id }, opts);
      return renderJson(200, { id: params.id, deleted: true });
    },
  }),

  route({
    method: 'post',
    path: '/v1/webhooks/{id}/enable',
    operationId: 'enableWebhook',
    summary: 'Re-enable a disabled endpoint (and optionally ask for missed events again)',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    body: enableBody,
    bodyOptional: true,
    responses: { 200: webhookSchema },
    errors: ['not_found'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.webhooks.call.enableEndpoint(
        {
          ...tenantOf(req),
          endpointId: params.id,
          redeliverSince: body.redeliver_since === undefined ? undefined : new Date(body.redeliver_since),
        },
        opts,
      );
      return renderJson(200, toRestEndpoint(response.endpoint));
    },
  }),

  route({
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    operationId: 'listDeliveries',
    summary: 'Delivery records',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: webhookPath,
    query: {
      event_type: enumQuery(EVENT_TYPES, 'event_type is not a known event type', { emptyIsNone: true, description: 'only deliveries of this event type' }),
      ...pageQuery,
      status: enumQuery(DELIVERY_STATUS_NAMES, `status must be one of ${DELIVERY_STATUS_NAMES.join(', ')}`),
    },
    responses: { 200: deliveryPageSchema },
    errors: ['not_found', 'invalid_cursor'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.webhooks.call.listDeliveries(
        {
          ...tenantOf(req),
          endpointId: params.id,
          ...pageOf(query),
          status: deliveryStatusFilter(query.status),
          eventType: query.event_type ?? '',
        },
        opts,
      );
      return renderJson(200, page(response.deliveries.map(toRestDelivery), response.nextPageToken));
    },
  }),

  route({
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    operationId: 'sendTestEvent',
    summary: 'Send a signed sample event',
    description:
      "The endpoint's first subscribed type (or account.created), in the ordinary signed envelope with the caller's organization_id; its data is synthetic (account 0, null ids, sample figures) and carries test: true.",
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    responses: { 202: deliveryAcceptedSchema },
    errors: ['not_found', 'conflict'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.webhooks.call.sendTestEvent({ ...tenantOf(req), endpointId: params.id }, opts);
      return renderJson(202, { delivery_id: response.deliveryId, event_id: response.eventId });
    },
  }),

  route({
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
    operationId: 'retryDelivery',
    summary: 'Redeliver one delivery',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: { ...webhookPath, delivery_id: idPath('delivery', 'delivery id') },
    responses: { 202: deliveryAcceptedSchema },
    errors: ['not_found', 'conflict'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.webhooks.call.retryDelivery(
        { ...tenantOf(req), endpointId: params.id, deliveryId: params.delivery_id },
        opts,
      );
      return renderJson(202, { delivery_id: response.deliveryId, event_id: response.eventId });
    },
  }),

  route({
    method: 'post',
    path: '/v1/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret, signing with both until the previous one expires',
    description:
      'While the previous secret is valid every delivery carries both signatures: `X-Service-Signature: v1=<new>,v1=<previous>` ' +
      'and two space-separated entries in `webhook-signature`. Retries are signed with the secrets valid when they are sent.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    body: rotateBody,
    bodyOptional: true,
    responses: { 200: webhookSecretSchema },
    errors: ['not_found'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.webhooks.call.rotateEndpointSecret(
        { ...tenantOf(req), endpointId: params.id, previousExpiresInSeconds: body.previous_expires_in },
        opts,
      );
      return renderJson(200, { id: response.endpoint?.id ?? params.id, secret: response.secret });
    },
  }),

  route({
    method: 'patch',
    path: '/v1/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: "Change an endpoint's url, events or description",
    description:
      'The same rules as registration (HTTPS only, the private-network rules, known event types; the url is checked again at every connection). ' +
      'A field left out keeps its value; `description: null` removes it; an empty body or an unknown field is 400. ' +
      'Deliveries not yet made go to the new url; events already fanned out are still delivered whatever the new events. The secret is unchanged and not shown.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    body: updateBody,
    responses: { 200: webhookUpdatedSchema },
    errors: ['invalid_request', 'not_found'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.webhooks.call.updateEndpoint(
        {
          ...tenantOf(req),
          endpointId: params.id,
          url: body.url ?? '',
          events: [...new Set(body.events ?? [])],
          description: body.description ?? '',
          updateMask: UPDATABLE.filter((field) => body[field] !== undefined),
        },
        opts,
      );
      return renderJson(200, { ...toRestEndpoint(response.endpoint), warnings: response.warnings });
    },
  }),

  route({
    method: 'post',
    path: '/v1/webhooks/{id}/recover',
    operationId: 'recoverWebhook',
    summary: 'Attempt again every failed delivery since a time',
    description:
      'Every delivery of the endpoint in status `failed` whose last attempt was at or after `since` is attempted again with a fresh retry budget. ' +
      'Calling it again while they are pending finds none (`redelivered: 0`). A disabled endpoint is 409 `conflict`: enable it first (enable can redeliver what it missed).',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: webhookPath,
    body: recoverBody,
    responses: { 202: webhookRecoveredSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.webhooks.call.recoverFailedDeliveries({ ...tenantOf(req), endpointId: params.id, since: new Date(body.since) }, opts);
      return renderJson(202, { redelivered: response.redelivered });
    },
  }),
];
