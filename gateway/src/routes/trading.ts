import type { tradingv1 } from '@propdesk/proto';
import { AppError, z, type CallOpts } from '@propdesk/kit';
import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson, type Rendered } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { idParam, nonEmptyString, objectBody, pageParams, parseBody, positiveIntegerParam, queryString } from '../http/validation';
import { toRestAccount } from '../mapping/accounts';
import { page } from '../mapping/common';
import { ORDER_TYPES, SIDES, positionStatusFilter, toRestDeal, toRestEquityPoint, toRestFlag, toRestPosition } from '../mapping/trading';

const price = z.number().positive().finite();

const orderBody = objectBody({
  symbol: z.string().trim().min(1).max(32),
  side: z.enum(['buy', 'sell']),
  volume: z.number().positive().finite(),
  type: z.enum(['market', 'limit', 'stop']).default('market'),
  price: price.optional(),
  stop_loss: price.optional(),
  take_profit: price.optional(),
});

export function orderRequest(body: unknown): Omit<tradingv1.PlaceOrderRequest, 'organizationId' | 'number'> {
  const order = parseBody(orderBody, body);
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
  async placeOrder(clients: Clients, organizationId: string, number: string, body: unknown, opts: CallOpts): Promise<Rendered> {
    const response = await clients.trading.call.placeOrder({ organizationId, number, ...orderRequest(body) }, opts);
    return renderJson(201, toRestPosition(response.position));
  },
  async closePosition(clients: Clients, organizationId: string, number: string, positionId: string, opts: CallOpts): Promise<Rendered> {
    const response = await clients.trading.call.closePosition({ organizationId, number, positionId }, opts);
    return renderJson(200, toRestPosition(response.position));
  },
  async listPositions(clients: Clients, organizationId: string, number: string, req: Parameters<typeof pageParams>[0], opts: CallOpts): Promise<Rendered> {
    const response = await clients.trading.call.listPositions(
      { organizationId, number, ...pageParams(req), status: positionStatusFilter(queryString(req, 'status')) },
      opts,
    );
    return renderJson(200, page(response.positions.map(toRestPosition), response.nextPageToken));
  },
};

function timeQuery(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new AppError('invalid_request', `${param} must be an ISO 8601 time`, param);
  return date;
}

const breachBody = objectBody({ reason: nonEmptyString(500) });

export function registerTradingRoutes(define: DefineRoute, clients: Clients): void {
  const target = (req: Parameters<typeof apiKeyOf>[0]) => ({
    organizationId: apiKeyOf(req).organizationId,
    number: positiveIntegerParam(req.params.number, 'number'),
  });

  define('post', '/v1/accounts/:number/positions', { apiKey: 'trading:write' }, async (req, opts) => {
    const { organizationId, number } = target(req);
    return trading.placeOrder(clients, organizationId, number, req.body, opts);
  });

  define('post', '/v1/accounts/:number/positions/:id/close', { apiKey: 'trading:write' }, async (req, opts) => {
    const { organizationId, number } = target(req);
    return trading.closePosition(clients, organizationId, number, idParam(req.params.id, 'position'), opts);
  });

  define('post', '/v1/accounts/:number/breach', { apiKey: 'trading:write' }, async (req, opts) => {
    const { organizationId, number } = target(req);
    const body = parseBody(breachBody, req.body);
    const response = await clients.trading.call.breachAccount({ organizationId, number, reason: body.reason }, opts);
    return renderJson(200, toRestAccount(response.account));
  });

  define('get', '/v1/accounts/:number/positions', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId, number } = target(req);
    return trading.listPositions(clients, organizationId, number, req, opts);
  });

  define('get', '/v1/accounts/:number/trades', { apiKey: 'accounts:read' }, async (req, opts) => {
    const response = await clients.trading.call.listTrades({ ...target(req), ...pageParams(req) }, opts);
    return renderJson(200, page(response.deals.map(toRestDeal), response.nextPageToken));
  });

  define('get', '/v1/accounts/:number/flags', { apiKey: 'accounts:read' }, async (req, opts) => {
    const response = await clients.trading.call.listFlags({ ...target(req), ...pageParams(req) }, opts);
    return renderJson(200, page(response.flags.map(toRestFlag), response.nextPageToken));
  });

  define('get', '/v1/accounts/:number/analytics', { apiKey: 'accounts:read' }, async (req, opts) => {
    const response = await clients.trading.call.getAnalytics(target(req), opts);
    return renderJson(200, response.analytics ?? {});
  });

  define('get', '/v1/accounts/:number/equity', { apiKey: 'accounts:read' }, async (req, opts) => {
    const response = await clients.trading.call.getEquityCurve(
      { ...target(req), from: timeQuery(queryString(req, 'from'), 'from'), to: timeQuery(queryString(req, 'to'), 'to') },
      opts,
    );
    return renderJson(200, { data: response.points.map(toRestEquityPoint) });
  });

  define('get', '/v1/accounts/:number/report', { apiKey: 'accounts:read' }, async (req, opts) => {
    const response = await clients.trading.call.getReport(target(req), opts);
    return renderJson(200, response.report ?? {});
  });
}
