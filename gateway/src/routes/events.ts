import { EVENT_TYPES } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, integerQuery, pageOf, pageQuery } from '../http/validation';
import { eventSchema, toRestEvent } from '../mapping/accounts';
import { page, pageSchema } from '../mapping/common';

const eventPageSchema = pageSchema(eventSchema).openapi('EventPage');

export const eventRoutes = [
  route({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'The event feed',
    description:
      'For integrations that poll; the same events go to webhooks. Newest last, in the order they committed. ' +
      "With `account`, that account's events only, in `sequence` order (1 for its first event, then +1 for each following one, no gaps, no repeats), " +
      'from `after_sequence` on: a receiver that saw sequence K of an account and then K + 2 asks `?account={n}&after_sequence=K` for what it missed. ' +
      'An account of another organization or of the other mode has no events here.',
    tag: 'Events',
    access: { apiKey: 'accounts:read' },
    query: {
      type: enumQuery(EVENT_TYPES, `type must be one of ${EVENT_TYPES.join(', ')}`, { emptyIsNone: true, description: 'only events of this type' }),
      account: integerQuery('account', 1, "only this account's events (its number), ordered by sequence"),
      after_sequence: integerQuery('after_sequence', 0, "with account: only its events whose sequence is above this (0: from its first event); refused without account"),
      ...pageQuery,
    },
    responses: { 200: eventPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.accounts.call.listEvents(
        { ...tenantOf(req), ...pageOf(query), type: query.type ?? '', account: query.account, afterSequence: query.after_sequence },
        opts,
      );
      return renderJson(200, page(response.events.map(toRestEvent), response.nextPageToken));
    },
  }),
];
