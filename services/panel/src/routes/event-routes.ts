import { Router } from 'express';
import { AppError, EVENT_TYPES, isEventType, toRestEvent } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { pageOf, pageParams, queryString } from '../validation';

/** The Events page: the organization's event feed, paged and filtered as GET /v1/events. */
export function eventRoutes(clients: PanelClients): Router {
  const router = Router();

  router.get('/panel/api/events', requireSession(clients), async (req, res) => {
    const type = queryString(req, 'type') ?? '';
    if (type !== '' && !isEventType(type)) throw new AppError('invalid_request', `type must be one of ${EVENT_TYPES.join(', ')}`, 'type');
    const result = await clients.accounts.listEvents({ ...tenantOf(req), ...pageParams(req), type });
    res.json(pageOf(result.events.map(toRestEvent), result.nextPageToken));
  });

  return router;
}
