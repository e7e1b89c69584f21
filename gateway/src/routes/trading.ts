import type { tradingv1 } from '@propdesk/proto';
import { AppError, LOT_STEP, type ApiErrorCode, type CallOpts, type ScopeFields } from '@propdesk/kit';
import type { Clients } from '../clients';
import { tenantOf } from '../auth/principal';
import { renderJson, type Rendered } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, exactNumber, freeText, idPath, objectBody, pageOf, pageQuery, timeQuery, type PageParams } from '../http/validation';
import { z } from '../http/zod';
import { accountSchema, toRestAccount } from '../mapping/accounts';
import { page } from '../mapping/common';
import { analyticsSchema, reportSchema } from '../mapping/reports';
import {
  ORDER_TYPE_NAMES,
  ORDER_TYPES,
  POSITION_STATUS_NAMES,
  SIDE_NAMES,
  SIDES,
  dealPageSchema,
  equityCurveSchema,
  flagPageSchema,
  positionPageSchema,
  positionSchema,
  positionStatusFilter,
  toRestDeal,
  toRestEquityPoint,
  toRestFlag,
  toRestPosition,
} from '../mapping/trading';
import { accountPath } from './accounts';

const TAG = 'Trading';
/** At most the instrument's digits (EURUSD 5, USDJPY 3, XAUUSD 2, ...): the service knows them and refuses finer. */
const price = (description: string) => exactNumber({}, `${description}; at most the instrument's digits, anything finer is refused (never rounded)`);

export const orderBody = objectBody({
  symbol: z.string().min(1).max(32).regex(/^[A-Za-z0-9]+$/, 'must be an instrument symbol such as EURUSD').openapi({ example: 'EURUSD' }),
  side: z.enum(SIDE_NAMES),
  volume: exactNumber({ unit: 'lots', step: LOT_STEP }, 'lots').openapi({ example: 0.1 }),
  type: z.enum(ORDER_TYPE_NAMES).default('market'),
  price: price('limit and stop orders only, and required for them').optional(),
  stop_loss: price('stop loss level').optional(),
  take_profit: price('take profit level').optional(),
}).openapi('OrderRequest');

/** What placing an order can answer besides validation: the account's state, the rules, the market. */
export const ORDER_ERRORS: readonly ApiErrorCode[] = ['invalid_request', 'account_archived', 'account_breached', 'account_passed', 'order_rejected', 'unavailable'];
/** Closing: the position, its state, the account's state, the market. */
export const CLOSE_ERRORS: readonly ApiErrorCode[] = ['not_found', 'conflict', 'account_archived', 'account_breached', 'account_passed', 'unavailable'];

export const positionPath = { id: idPath('position', 'position id') };
export const positionListQuery = {
  ...pageQuery,
  status: enumQuery(POSITION_STATUS_NAMES, `status must be one of ${POSITION_STATUS_NAMES.join(', ')}`),
};

/** An order body as the trading service takes it (placing, previewing). */
export function orderRequest(order: z.output<typeof orderBody>): Omit<tradingv1.PlaceOrderRequest, 'organizationId' | 'mode' | 'number'> {
  if (order.type !== 'market' && order.price === undefined) throw new AppError('invalid_request', `price is required for a ${order.type} order`, 'price');
  if (order.type === 'market' && order.price !== undefined) throw new AppError('invalid_request', 'price is only for limit and stop orders', 'price');
  return {
    symbol: order.symbol.toUpperCase(),
    side: SIDES[order.side],
    volume: order.volume,
    type: ORDER_TYPES[order.type],
    price: order.price,
    stopLoss: order.stop_loss,
    takeProfit: order.take_profit,
  };
}

/** Shared by the API-key routes and the executor routes: same calls, the account comes from elsewhere. */
export const trading = {
  async placeOrder(clients: Clients, scope: ScopeFields, number: string, order: z.output<typeof orderBody>, opts: CallOpts): Promise<Rendered> {
    const response = await clients.trading.call.placeOrder({ ...scope, number, ...orderRequest(order) }, opts);
    return renderJson(201, toRestPosition(response.position));
  },
  async closePosition(clients: Clients, scope: ScopeFields, number: string, positionId: string, opts: CallOpts): Promise<Rendered> {
    const response = await clients.trading.call.closePosition({ ...scope, number, positionId }, opts);
    return renderJson(200, toRestPosition(response.position));
  },
  async listPositions(
    clients: Clients,
    scope: ScopeFields,
    number: string,
    query: PageParams & { status: tradingv1.PositionStatus },
    opts: CallOpts,
  ): Promise<Rendered> {
    const response = await clients.trading.call.listPositions({ ...scope, number, ...query }, opts);
    return renderJson(200, page(response.positions.map(toRestPosition), response.nextPageToken));
  },
};

const breachBody = objectBody({ reason: freeText({ max: 500 }).openapi({ example: 'manual review' }) }).openapi('BreachRequest');

export const tradingRoutes = [
  route({
    method: 'post',
    path: '/v1/accounts/{number}/positions',
    operationId: 'placeOrder',
    summary: 'Place an order (market, limit or stop)',
    tag: TAG,
    access: { apiKey: 'trading:write' },
    params: accountPath,
    body: orderBody,
    responses: { 201: positionSchema },
    errors: ['not_found', ...ORDER_ERRORS],
    handler: ({ req, params, body, clients, opts }) => trading.placeOrder(clients, tenantOf(req), params.number, body, opts),
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/positions/{id}/close',
    operationId: 'closePosition',
    summary: 'Close a position (or cancel a pending order)',
    tag: TAG,
    access: { apiKey: 'trading:write' },
    params: { ...accountPath, ...positionPath },
    responses: { 200: positionSchema },
    errors: CLOSE_ERRORS,
    handler: ({ req, params, clients, opts }) => trading.closePosition(clients, tenantOf(req), params.number, params.id, opts),
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/breach',
    operationId: 'breachAccount',
    summary: 'Force a manual breach',
    tag: TAG,
    access: { apiKey: 'trading:write' },
    params: accountPath,
    body: breachBody,
    responses: { 200: accountSchema },
    errors: ['invalid_request', 'not_found', 'account_archived', 'account_breached', 'account_passed'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.breachAccount({ ...tenantOf(req), number: params.number, reason: body.reason }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/positions',
    operationId: 'listPositions',
    summary: 'Positions and pending orders',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: positionListQuery,
    responses: { 200: positionPageSchema },
    errors: ['not_found', 'invalid_cursor'],
    handler: ({ req, params, query, clients, opts }) =>
      trading.listPositions(clients, tenantOf(req), params.number, { ...pageOf(query), status: positionStatusFilter(query.status) }, opts),
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/trades',
    operationId: 'listTrades',
    summary: 'Deals',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: pageQuery,
    responses: { 200: dealPageSchema },
    errors: ['not_found', 'invalid_cursor'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.trading.call.listTrades({ ...tenantOf(req), number: params.number, ...pageOf(query) }, opts);
      return renderJson(200, page(response.deals.map(toRestDeal), response.nextPageToken));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/flags',
    operationId: 'listFlags',
    summary: 'Rule flags and breaches',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: pageQuery,
    responses: { 200: flagPageSchema },
    errors: ['not_found', 'invalid_cursor'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.trading.call.listFlags({ ...tenantOf(req), number: params.number, ...pageOf(query) }, opts);
      return renderJson(200, page(response.flags.map(toRestFlag), response.nextPageToken));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/analytics',
    operationId: 'getAnalytics',
    summary: 'Indicators and headroom',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    responses: { 200: analyticsSchema },
    errors: ['not_found', 'unavailable'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.getAnalytics({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, response.analytics ?? {});
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/equity',
    operationId: 'getEquityCurve',
    summary: 'Equity curve points',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: { from: timeQuery('from', 'first point at or after this time'), to: timeQuery('to', 'last point at or before this time') },
    responses: { 200: equityCurveSchema },
    errors: ['invalid_request', 'not_found'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.trading.call.getEquityCurve(
        { ...tenantOf(req), number: params.number, from: query.from, to: query.to },
        opts,
      );
      return renderJson(200, { data: response.points.map(toRestEquityPoint) });
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/report',
    operationId: 'getReport',
    summary: 'The full report',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    responses: { 200: reportSchema },
    errors: ['not_found', 'unavailable'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.getReport({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, response.report ?? {});
    },
  }),
];
