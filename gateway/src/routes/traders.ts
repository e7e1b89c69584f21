import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { idPath, pageOf, pageQuery } from '../http/validation';
import { toRestTrader, traderSchema } from '../mapping/accounts';
import { page, pageSchema } from '../mapping/common';
import { traderBody } from './accounts';

const TAG = 'Traders';
const traderPageSchema = pageSchema(traderSchema).openapi('TraderPage');

export const traderRoutes = [
  route({
    method: 'get',
    path: '/v1/traders',
    operationId: 'listTraders',
    summary: 'List traders',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    query: pageQuery,
    responses: { 200: traderPageSchema },
    errors: ['invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.accounts.call.listTraders({ ...tenantOf(req), ...pageOf(query) }, opts);
      return renderJson(200, page(response.traders.map(toRestTrader), response.nextPageToken));
    },
  }),

  route({
    method: 'post',
    path: '/v1/traders',
    operationId: 'createTrader',
    summary: 'Create a trader (200 with the existing one when the email is known)',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    body: traderBody,
    responses: { 200: traderSchema, 201: traderSchema },
    errors: ['invalid_request'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.accounts.call.createTrader({ ...tenantOf(req), name: body.name, email: body.email }, opts);
      return renderJson(response.created ? 201 : 200, toRestTrader(response.trader));
    },
  }),

  route({
    method: 'get',
    path: '/v1/traders/{id}',
    operationId: 'getTrader',
    summary: 'One trader',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: { id: idPath('trader', 'trader id') },
    responses: { 200: traderSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.getTrader({ ...tenantOf(req), traderId: params.id }, opts);
      return renderJson(200, toRestTrader(response.trader));
    },
  }),
];
