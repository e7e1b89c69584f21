import { Router } from 'express';
import { AppError, DELIVERY_STATUS_NAMES, deliveryStatusFilter, OVERLAP_SECONDS, toRestDelivery, toRestEndpoint, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { idParam, pageOf, pageParams, parseBody, queryString } from '../validation';

const registerBody = z.object({
  // Checked by the webhooks service (refused, never trimmed or otherwise repaired).
  url: z.string().min(1).max(2048),
  events: z.array(z.string().max(64)).max(64).default([]),
});

const overlapMessage = `must be an integer from ${OVERLAP_SECONDS.min} to ${OVERLAP_SECONDS.max} (seconds)`;
const rotateBody = z.object({
  previous_expires_in: z
    .number({ invalid_type_error: overlapMessage })
    .int(overlapMessage)
    .min(OVERLAP_SECONDS.min, overlapMessage)
    .max(OVERLAP_SECONDS.max, overlapMessage)
    .optional(),
});

function deliveryStatus(raw: string | undefined) {
  if (raw === undefined) return deliveryStatusFilter(undefined);
  const name = DELIVERY_STATUS_NAMES.find((s) => s === raw);
  if (!name) throw new AppError('invalid_request', `status must be one of ${DELIVERY_STATUS_NAMES.join(', ')}`, 'status');
  return deliveryStatusFilter(name);
}

/** The Webhooks pages: endpoints and their deliveries, in the REST shapes; members only read. */
export function webhookRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const endpointId = (req: Parameters<typeof sessionOf>[0]) => idParam(req, 'id', 'webhook endpoint');

  router.get('/panel/api/webhooks', session, async (req, res) => {
    const result = await clients.webhooks.listEndpoints({ ...tenantOf(req), ...pageParams(req) });
    res.json(pageOf(result.endpoints.map(toRestEndpoint), result.nextPageToken));
  });

  // The secret is in this answer only (SPEC section 8).
  router.post('/panel/api/webhooks', session, managers, async (req, res) => {
    const body = parseBody(registerBody, req);
    const result = await clients.webhooks.createEndpoint({ ...tenantOf(req), url: body.url, events: [...new Set(body.events)] });
    res.status(201).json({ ...toRestEndpoint(result.endpoint), secret: result.secret, warnings: result.warnings });
  });

  router.get('/panel/api/webhooks/:id', session, async (req, res) => {
    const result = await clients.webhooks.getEndpoint({ ...tenantOf(req), endpointId: endpointId(req) });
    res.json(toRestEndpoint(result.endpoint));
  });

  router.delete('/panel/api/webhooks/:id', session, managers, async (req, res) => {
    const id = endpointId(req);
    await clients.webhooks.deleteEndpoint({ ...tenantOf(req), endpointId: id });
    res.json({ id, deleted: true });
  });

  router.post('/panel/api/webhooks/:id/enable', session, managers, async (req, res) => {
    const result = await clients.webhooks.enableEndpoint({ ...tenantOf(req), endpointId: endpointId(req) });
    res.json(toRestEndpoint(result.endpoint));
  });

  // SPEC section 12: the new secret is shown once; the previous one keeps signing for the overlap.
  router.post('/panel/api/webhooks/:id/rotate-secret', session, managers, async (req, res) => {
    const { previous_expires_in } = parseBody(rotateBody, req);
    const result = await clients.webhooks.rotateEndpointSecret({
      ...tenantOf(req),
      endpointId: endpointId(req),
      previousExpiresInSeconds: previous_expires_in,
    });
    res.json({ id: result.endpoint?.id ?? endpointId(req), secret: result.secret });
  });

  router.get('/panel/api/webhooks/:id/deliveries', session, async (req, res) => {
    const result = await clients.webhooks.listDeliveries({
      ...tenantOf(req),
      endpointId: endpointId(req),
      ...pageParams(req),
      status: deliveryStatus(queryString(req, 'status')),
      eventType: queryString(req, 'event_type') ?? '',
    });
    res.json(pageOf(result.deliveries.map(toRestDelivery), result.nextPageToken));
  });

  router.post('/panel/api/webhooks/:id/test', session, managers, async (req, res) => {
    const result = await clients.webhooks.sendTestEvent({ ...tenantOf(req), endpointId: endpointId(req) });
    res.status(202).json({ delivery_id: result.deliveryId, event_id: result.eventId });
  });

  router.post('/panel/api/webhooks/:id/deliveries/:deliveryId/retry', session, managers, async (req, res) => {
    const result = await clients.webhooks.retryDelivery({
      ...tenantOf(req),
      endpointId: endpointId(req),
      deliveryId: idParam(req, 'deliveryId', 'delivery'),
    });
    res.status(202).json({ delivery_id: result.deliveryId, event_id: result.eventId });
  });

  return router;
}
