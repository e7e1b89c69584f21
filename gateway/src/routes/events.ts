import { EVENT_TYPES } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, pageOf, pageQuery } from '../http/validation';
import { eventSchema, toRestEvent } from '../mapping/accounts';
import { page, pageSchema } from '../mapping/common';

const eventPageSchema = pageSchema(eventSchema).openapi('EventPage');

export const eventRoutes = [
  route({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'The event feed',
    description: 'For integrations that poll; the same events go to webhooks.',
    tag: 'Events',
    access: { apiKey: 'accounts:read' },
    query: {
      type: enumQuery(EVENT_TYPES, `type must be one of ${EVENT_TYPES.join(', ')}`, { emptyIsNone: true, description: 'only events of this type' }),
      ...pageQuery,
    },
    responses: { 200: eventPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.accounts.call.listEvents({ ...tenantOf(req), ...pageOf(query), type: query.type ?? '' }, opts);
      return renderJson(200, page(response.events.map(toRestEvent), response.nextPageToken));
    },
  }),
];
