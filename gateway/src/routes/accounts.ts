import { z } from '@propdesk/kit';
import type { Clients } from '../clients';
import { apiKeyOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import type { DefineRoute } from '../http/route';
import { nonEmptyString, objectBody, pageParams, parseBody, positiveIntegerParam, queryString } from '../http/validation';
import { accountPageBody, accountStatusFilter, toRestAccount, toRestCredentials, toRestTrader } from '../mapping/accounts';
import { AppError } from '@propdesk/kit';

const createAccountsBody = objectBody({
  count: z.number().int().min(1).max(100),
  program: z.string().trim().min(1).max(64).optional(),
  initial_balance: z.number().positive().finite().max(1e12).optional(),
});

export const traderBody = objectBody({
  name: nonEmptyString(200),
  email: z.string().trim().max(320).email(),
});

function assignedFilter(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new AppError('invalid_request', 'assigned must be true or false', 'assigned');
}

export function registerAccountRoutes(define: DefineRoute, { accounts, listAccounts }: Clients): void {
  define('get', '/v1/accounts', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const traderId = queryString(req, 'trader_id');
    const response = await listAccounts(
      {
        organizationId,
        ...pageParams(req),
        status: accountStatusFilter(queryString(req, 'status')),
        assigned: assignedFilter(queryString(req, 'assigned')),
        traderId: traderId === undefined || traderId === '' ? undefined : traderId,
        jsonView: true,
      },
      opts,
    );
    return { status: 200, body: accountPageBody(response) };
  });

  define('post', '/v1/accounts', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const body = parseBody(createAccountsBody, req.body);
    const response = await accounts.call.createAccounts(
      { organizationId, count: body.count, program: body.program ?? '', initialBalance: body.initial_balance ?? 0 },
      opts,
    );
    return renderJson(201, { data: response.accounts.map(toRestAccount) });
  });

  define('post', '/v1/accounts/claim', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const body = parseBody(traderBody, req.body);
    const response = await accounts.call.claimAccount({ organizationId, name: body.name, email: body.email }, opts);
    return renderJson(200, { account: toRestAccount(response.account), trader: toRestTrader(response.trader) });
  });

  define('get', '/v1/accounts/:number', { apiKey: 'accounts:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const response = await accounts.call.getAccount({ organizationId, number }, opts);
    return renderJson(200, toRestAccount(response.account));
  });

  define('put', '/v1/accounts/:number/trader', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const body = parseBody(traderBody, req.body);
    const response = await accounts.call.assignTrader({ organizationId, number, name: body.name, email: body.email }, opts);
    return renderJson(200, { account: toRestAccount(response.account), trader: toRestTrader(response.trader) });
  });

  define('delete', '/v1/accounts/:number/trader', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const response = await accounts.call.unassignTrader({ organizationId, number }, opts);
    return renderJson(200, { account: toRestAccount(response.account), trader: null });
  });

  define('post', '/v1/accounts/:number/archive', { apiKey: 'accounts:write' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const response = await accounts.call.archiveAccount({ organizationId, number }, opts);
    return renderJson(200, toRestAccount(response.account));
  });

  define('get', '/v1/accounts/:number/credentials', { apiKey: 'credentials:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const response = await accounts.call.getCredentials({ organizationId, number }, opts);
    return renderJson(200, toRestCredentials(response.credentials));
  });

  define('post', '/v1/accounts/:number/credentials/rotate', { apiKey: 'credentials:read' }, async (req, opts) => {
    const { organizationId } = apiKeyOf(req);
    const number = positiveIntegerParam(req.params.number, 'number');
    const response = await accounts.call.rotateCredentials({ organizationId, number }, opts);
    return renderJson(200, toRestCredentials(response.credentials));
  });
}
