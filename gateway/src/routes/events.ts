import { EVENT_CATALOG, EVENT_TYPES } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson, type Rendered } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, integerQuery, pageOf, pageQuery } from '../http/validation';
import { z } from '../http/zod';
import { eventSchema, toRestEvent } from '../mapping/accounts';
import { page, pageSchema } from '../mapping/common';
import { eventDataJsonSchemas } from '../openapi/event-schemas';

const eventPageSchema = pageSchema(eventSchema).openapi('EventPage');

const eventTypeSchema = z
  .object({
    type: z.enum(EVENT_TYPES),
    description: z.string().describe('what happened when an event of this type is emitted'),
    schema: z
      .record(z.string(), z.unknown())
      .openapi({ description: "the JSON Schema (draft 2020-12) of the event's data: every field, its type and whether it may be null; no other field" }),
  })
  .strict()
  .openapi('EventType');
const eventTypeListSchema = z
  .object({ data: z.array(eventTypeSchema), next_cursor: z.null().describe('always null: every type is on this one page') })
  .strict()
  .openapi('EventTypeList');

let eventTypes: Rendered | undefined;

/** GET /v1/event_types' answer, the same for every caller: serialised once. */
function servedEventTypes(): Rendered {
  const schemas = eventDataJsonSchemas();
  eventTypes ??= renderJson(200, {
    data: EVENT_TYPES.map((type) => ({ type, description: EVENT_CATALOG[type].description, schema: schemas[type] })),
    next_cursor: null,
  });
  return eventTypes;
}

export const eventRoutes = [
  route({
    method: 'get',
    path: '/v1/event_types',
    operationId: 'listEventTypes',
    summary: 'Every event type and the JSON Schema of its data',
    description:
      'The catalog the events are built from: each type that the feed and webhooks carry (and that a webhook endpoint may subscribe to), what it means, and the JSON Schema of its `data`. ' +
      'The same for every organization and mode; one page.',
    tag: 'Events',
    access: { apiKey: null },
    responses: { 200: eventTypeListSchema },
    errors: [],
    handler: async () => servedEventTypes(),
  }),
  route({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'The event feed',
    description:
      'For integrations that poll; the same events go to webhooks. Newest last, in the order they committed. ' +
      'A write answered before the read has its events listed (the read waits briefly for writes still committing). ' +
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
