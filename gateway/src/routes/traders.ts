import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { idParam, pageParams, parseBody } from '../http/validation';
import { toRestTrader } from '../mapping/accounts';
import { page } from '../mapping/common';
import { traderBody } from './accounts';

export function registerTraderRoutes(define: DefineRoute, { accounts }: Clients): void {
  define('get', '/v1/traders', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const response = await accounts.call.listTraders({ organizationId, ...pageParams(req) }, opts);
    return renderJson(200, page(response.traders.map(toRestTrader), response.nextPageToken));
  });

  define('post', '/v1/traders', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const body = parseBody(traderBody, req.body);
    const response = await accounts.call.createTrader({ organizationId, name: body.name, email: body.email }, opts);
    return renderJson(response.created ? 201 : 200, toRestTrader(response.trader));
  });

  define('get', '/v1/traders/:id', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const response = await accounts.call.getTrader({ organizationId, traderId: idParam(req.params.id, 'trader') }, opts);
    return renderJson(200, toRestTrader(response.trader));
  });
}
