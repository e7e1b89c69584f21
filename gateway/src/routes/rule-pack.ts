import {
  present,
  restNewsEventDeletedSchema,
  restNewsEventSchema,
  restOrderPreviewSchema,
  scopeFields,
  toRestNewsEvent,
  toRestOrderPreview,
  type CallOpts,
  type ScopeFields,
} from '@propdesk/kit';
import type { Clients } from '../clients';
import { executorOf, tenantOf } from '../auth/principal';
import { renderJson, type Rendered } from '../http/errors';
import { route } from '../http/route';
import { freeText, idPath, objectBody, pageOf, pageQuery, rfc3339Time, timeQuery } from '../http/validation';
import { z } from '../http/zod';
import { page, pageSchema } from '../mapping/common';
import { accountPath } from './accounts';
import { orderBody, orderRequest } from './trading';

const newsEventSchema = restNewsEventSchema.openapi('NewsEvent');
const newsEventPageSchema = pageSchema(newsEventSchema).openapi('NewsEventPage');
const newsEventDeletedSchema = restNewsEventDeletedSchema.openapi('NewsEventDeleted');
const previewSchema = restOrderPreviewSchema.openapi('OrderPreview');
const newsPath = { id: idPath('news event', 'news event id (news_...)') };

const newsBody = objectBody({
  title: freeText({ max: 200 }).openapi({ example: 'US non-farm payrolls' }),
  time: rfc3339Time('time')
    .transform((v) => new Date(v))
    .openapi({ format: 'date-time', description: 'when the news is out; past times are accepted' }),
  currencies: z
    .array(z.string().max(3, 'must be a currency code of three capital letters such as USD').regex(/^[A-Z]{3}$/, 'must be a currency code of three capital letters such as USD'))
    .min(1, 'must list at least one currency')
    .max(20, 'must list at most 20 currencies')
    .openapi({ example: ['USD'] }),
}).openapi('CreateNewsEventRequest');

const PREVIEW_ERRORS = ['invalid_request', 'account_archived', 'account_breached', 'account_passed', 'unavailable'] as const;
const PREVIEW_DESCRIPTION =
  "What every pre-order rule says of the order now (halted, the day's lock, trading hours, news blackout, size, symbols, stop loss, risk per trade, open positions, trades per day, margin) and, with a stop loss, the account's headroom if it filled and was stopped out at its stop. " +
  'It changes nothing, emits nothing and counts toward no limit of the program (max_trades_per_day counts positions, not previews); it is answered 200 whatever the rules say. ' +
  'It is a POST, so it counts in the write bucket of the rate limits like any POST (SPEC 5).';

function preview(clients: Clients, scope: ScopeFields, number: string, order: z.output<typeof orderBody>, opts: CallOpts): Promise<Rendered> {
  return clients.trading.call.previewOrder({ ...scope, number, ...orderRequest(order) }, opts).then((answer) => renderJson(200, toRestOrderPreview(answer)));
}

/** SPEC 15: the order preview (API key and executor) and the organization's news calendar. */
export const rulePackRoutes = [
  route({
    method: 'post',
    path: '/v1/accounts/{number}/orders/preview',
    operationId: 'previewOrder',
    summary: 'Preview an order: the rules and the worst case',
    description: PREVIEW_DESCRIPTION,
    tag: 'Trading',
    access: { apiKey: 'trading:write' },
    params: accountPath,
    body: orderBody,
    responses: { 200: previewSchema },
    errors: ['not_found', ...PREVIEW_ERRORS],
    handler: ({ req, params, body, clients, opts }) => preview(clients, tenantOf(req), params.number, body, opts),
  }),

  route({
    method: 'post',
    path: '/v1/executor/orders/preview',
    operationId: 'previewExecutorOrder',
    summary: 'Preview an order on the session account',
    description: PREVIEW_DESCRIPTION,
    tag: 'Executor',
    access: { executor: true },
    body: orderBody,
    responses: { 200: previewSchema },
    errors: PREVIEW_ERRORS,
    handler: ({ req, body, clients, opts }) => {
      const session = executorOf(req);
      return preview(clients, scopeFields(session), session.accountNumber, body, opts);
    },
  }),

  route({
    method: 'post',
    path: '/v1/news_events',
    operationId: 'createNewsEvent',
    summary: 'Add a news event to the calendar',
    description:
      "The organization's own calendar, in the key's mode. A program phase with news_blackout_minutes refuses orders (rule news_blackout) on a symbol either of whose currencies the event lists, from that many minutes before its time to as many after.",
    tag: 'NewsEvents',
    access: { apiKey: 'accounts:write' },
    body: newsBody,
    responses: { 201: newsEventSchema },
    errors: ['invalid_request'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.trading.call.createNewsEvent({ ...tenantOf(req), title: body.title, time: body.time, currencies: body.currencies }, opts);
      return renderJson(201, toRestNewsEvent(present(response.newsEvent, 'a news event')));
    },
  }),

  route({
    method: 'get',
    path: '/v1/news_events',
    operationId: 'listNewsEvents',
    summary: 'The news calendar, in time order',
    tag: 'NewsEvents',
    access: { apiKey: 'accounts:read' },
    query: { ...pageQuery, from: timeQuery('from', 'events at or after this time'), to: timeQuery('to', 'events at or before this time') },
    responses: { 200: newsEventPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.trading.call.listNewsEvents({ ...tenantOf(req), ...pageOf(query), from: query.from, to: query.to }, opts);
      return renderJson(200, page(response.newsEvents.map(toRestNewsEvent), response.nextPageToken));
    },
  }),

  route({
    method: 'delete',
    path: '/v1/news_events/{id}',
    operationId: 'deleteNewsEvent',
    summary: 'Delete a news event',
    description: 'It no longer blacks out any order.',
    tag: 'NewsEvents',
    access: { apiKey: 'accounts:write' },
    params: newsPath,
    responses: { 200: newsEventDeletedSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.deleteNewsEvent({ ...tenantOf(req), id: params.id }, opts);
      return renderJson(200, { id: response.id, deleted: true });
    },
  }),
];
