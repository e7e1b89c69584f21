import { Router } from 'express';
import { AppError, DELIVERY_STATUS_NAMES, deliveryStatusFilter, OVERLAP_SECONDS, toRestDelivery, toRestEndpoint, z } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { idParam, pageOf, pageParams, parseBody, queryString } from '../validation';

// Checked by the webhooks service (refused, never trimmed or otherwise repaired).
const urlField = z.string().min(1).max(2048);
const eventsField = z.array(z.string().max(64)).max(64);
const descriptionField = z.string().max(1024).nullable();

const registerBody = z.object({
  url: urlField,
  events: eventsField.default([]),
  description: descriptionField.optional(),
});

/** The fields an edit may change (SPEC 17's PATCH); one left out keeps its value, null removes the description. */
const UPDATABLE = ['url', 'events', 'description'] as const;
const updateBody = z
  .object({ url: urlField.optional(), events: eventsField.optional(), description: descriptionField.optional() })
  .strict()
  .refine((body) => UPDATABLE.some((field) => body[field] !== undefined), `name at least one of ${UPDATABLE.join(', ')}`);

const recoverBody = z.object({
  // Its bounds (not in the future, at most 14 days back) are the webhooks service's.
  since: z.string({ required_error: 'since is required' }).datetime({ offset: true, message: 'since must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z' }),
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
    const result = await clients.webhooks.createEndpoint({
      ...tenantOf(req),
      url: body.url,
      events: [...new Set(body.events)],
      description: body.description ?? undefined,
    });
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

  // SPEC 17: url, events or description; the secret stays and is not shown.
  router.patch('/panel/api/webhooks/:id', session, managers, async (req, res) => {
    const body = parseBody(updateBody, req);
    const result = await clients.webhooks.updateEndpoint({
      ...tenantOf(req),
      endpointId: endpointId(req),
      url: body.url ?? '',
      events: [...new Set(body.events ?? [])],
      description: body.description ?? '',
      updateMask: UPDATABLE.filter((field) => body[field] !== undefined),
    });
    res.json({ ...toRestEndpoint(result.endpoint), warnings: result.warnings });
  });

  // SPEC 17: every failed delivery since then is attempted again.
  router.post('/panel/api/webhooks/:id/recover', session, managers, async (req, res) => {
    const { since } = parseBody(recoverBody, req);
    const result = await clients.webhooks.recoverFailedDeliveries({ ...tenantOf(req), endpointId: endpointId(req), since: new Date(since) });
    res.status(202).json({ redelivered: result.redelivered });
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
