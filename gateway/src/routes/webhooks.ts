import { AppError, z } from '@propdesk/kit';
import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { idParam, objectBody, pageParams, parseBody, queryString } from '../http/validation';
import { page } from '../mapping/common';
import { deliveryStatusFilter, toRestDelivery, toRestEndpoint } from '../mapping/webhooks';
import { EVENT_TYPES } from './events';

const enableBody = objectBody({
  redeliver_since: z.string().datetime({ offset: true }).optional(),
});

const endpointBody = objectBody({
  url: z
    .string()
    .max(2048)
    .url()
    .refine((url) => url.toLowerCase().startsWith('https://'), 'must be an HTTPS URL'),
  events: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length).default([]),
});

export function registerWebhookRoutes(define: DefineRoute, { webhooks }: Clients): void {
  define('post', '/v1/webhooks', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const body = parseBody(endpointBody, req.body);
    const response = await webhooks.call.createEndpoint({ organizationId, url: body.url, events: [...new Set(body.events)] }, opts);
    return renderJson(201, { ...toRestEndpoint(response.endpoint), secret: response.secret });
  });

  define('get', '/v1/webhooks', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const response = await webhooks.call.listEndpoints({ organizationId, ...pageParams(req) }, opts);
    return renderJson(200, page(response.endpoints.map(toRestEndpoint), response.nextPageToken));
  });

  define('delete', '/v1/webhooks/:id', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const endpointId = idParam(req.params.id, 'webhook');
    await webhooks.call.deleteEndpoint({ organizationId, endpointId }, opts);
    return renderJson(200, { id: endpointId, deleted: true });
  });

  define('post', '/v1/webhooks/:id/enable', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const body = parseBody(enableBody, req.body);
    const response = await webhooks.call.enableEndpoint(
      {
        organizationId,
        endpointId: idParam(req.params.id, 'webhook'),
        redeliverSince: body.redeliver_since === undefined ? undefined : new Date(body.redeliver_since),
      },
      opts,
    );
    return renderJson(200, toRestEndpoint(response.endpoint));
  });

  define('get', '/v1/webhooks/:id/deliveries', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const eventType = queryString(req, 'event_type') ?? '';
    if (eventType !== '' && !(EVENT_TYPES as readonly string[]).includes(eventType)) {
      throw new AppError('invalid_request', 'event_type is not a known event type', 'event_type');
    }
    const response = await webhooks.call.listDeliveries(
      {
        organizationId,
        endpointId: idParam(req.params.id, 'webhook'),
        ...pageParams(req),
        status: deliveryStatusFilter(queryString(req, 'status')),
        eventType,
      },
      opts,
    );
    return renderJson(200, page(response.deliveries.map(toRestDelivery), response.nextPageToken));
  });

  define('post', '/v1/webhooks/:id/test', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const response = await webhooks.call.sendTestEvent({ organizationId, endpointId: idParam(req.params.id, 'webhook') }, opts);
    return renderJson(202, { delivery_id: response.deliveryId, event_id: response.eventId });
  });

  define('post', '/v1/webhooks/:id/deliveries/:deliveryId/retry', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const response = await webhooks.call.retryDelivery(
      { organizationId, endpointId: idParam(req.params.id, 'webhook'), deliveryId: idParam(req.params.deliveryId, 'delivery') },
      opts,
    );
    return renderJson(202, { delivery_id: response.deliveryId, event_id: response.eventId });
  });
}
