import { z } from '@propdesk/kit';
import type { Clients } from '../clients';
import { clientIp, executorOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { idParam, objectBody, parseBody } from '../http/validation';
import { toRestAccount } from '../mapping/accounts';
import { iso } from '../mapping/common';
import { trading } from './trading';

const sessionBody = objectBody({
  account: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  password: z.string().min(1).max(256),
});

export function registerExecutorRoutes(define: DefineRoute, clients: Clients): void {
  const { accounts } = clients;

  define('post', '/v1/executor/sessions', { anonymous: true, login: true }, async (req, opts) => {
    const body = parseBody(sessionBody, req.body);
    const response = await accounts.call.createExecutorSession(
      { account: String(body.account), password: body.password, clientIp: clientIp(req) },
      opts,
    );
    return renderJson(201, { token: response.token, expires_at: iso(response.expiresAt) });
  });

  define('get', '/v1/executor/account', { executor: true }, async (req, opts) => {
    const session = executorOf(req);
    const response = await accounts.call.getAccount({ organizationId: session.organizationId, number: session.accountNumber }, opts);
    return renderJson(200, toRestAccount(response.account));
  });

  define('post', '/v1/executor/positions', { executor: true }, async (req, opts) => {
    const session = executorOf(req);
    return trading.placeOrder(clients, session.organizationId, session.accountNumber, req.body, opts);
  });

  define('get', '/v1/executor/positions', { executor: true }, async (req, opts) => {
    const session = executorOf(req);
    return trading.listPositions(clients, session.organizationId, session.accountNumber, req, opts);
  });

  define('post', '/v1/executor/positions/:id/close', { executor: true }, async (req, opts) => {
    const session = executorOf(req);
    return trading.closePosition(clients, session.organizationId, session.accountNumber, idParam(req.params.id, 'position'), opts);
  });
}
