import { scopeFields } from '@propdesk/kit';
import { clientIp, executorOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { objectBody, pageOf } from '../http/validation';
import { z } from '../http/zod';
import { accountSchema, toRestAccount } from '../mapping/accounts';
import { iso } from '../mapping/common';
import { positionPageSchema, positionSchema, positionStatusFilter } from '../mapping/trading';
import { CLOSE_ERRORS, ORDER_ERRORS, orderBody, positionListQuery, positionPath, trading } from './trading';

const TAG = 'Executor';

const sessionBody = objectBody({
  account: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).openapi({ description: 'account number' }),
  password: z.string().min(1).max(256).openapi({ description: 'the executor password' }),
}).openapi('ExecutorSessionRequest');

const sessionSchema = z
  .object({ token: z.string().regex(/^pfx_exec_/), expires_at: z.string().datetime() })
  .strict()
  .openapi('ExecutorSession');

export const executorRoutes = [
  route({
    method: 'post',
    path: '/v1/executor/sessions',
    operationId: 'createExecutorSession',
    summary: 'Log in with account number and executor password',
    description: 'Wrong number or password: 401 invalid_credentials, the same for both.',
    tag: TAG,
    access: { anonymous: true, login: true },
    body: sessionBody,
    responses: { 201: sessionSchema },
    errors: ['invalid_request', 'invalid_credentials', 'account_archived', 'account_breached', 'rate_limited', 'unavailable'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.accounts.call.createExecutorSession({ account: String(body.account), password: body.password, clientIp: clientIp(req) }, opts);
      return renderJson(201, { token: response.token, expires_at: iso(response.expiresAt) });
    },
  }),

  route({
    method: 'get',
    path: '/v1/executor/account',
    operationId: 'getExecutorAccount',
    summary: "The session's account",
    tag: TAG,
    access: { executor: true },
    responses: { 200: accountSchema },
    errors: [],
    async handler({ req, clients, opts }) {
      const session = executorOf(req);
      const response = await clients.accounts.call.getAccount({ ...scopeFields(session), number: session.accountNumber }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'post',
    path: '/v1/executor/positions',
    operationId: 'placeExecutorOrder',
    summary: 'Place an order on the session account',
    tag: TAG,
    access: { executor: true },
    body: orderBody,
    responses: { 201: positionSchema },
    errors: ORDER_ERRORS,
    handler: ({ req, body, clients, opts }) => {
      const session = executorOf(req);
      return trading.placeOrder(clients, scopeFields(session), session.accountNumber, body, opts);
    },
  }),

  route({
    method: 'get',
    path: '/v1/executor/positions',
    operationId: 'listExecutorPositions',
    summary: "The session account's positions and pending orders",
    tag: TAG,
    access: { executor: true },
    query: positionListQuery,
    responses: { 200: positionPageSchema },
    errors: ['invalid_cursor'],
    handler: ({ req, query, clients, opts }) => {
      const session = executorOf(req);
      return trading.listPositions(clients, scopeFields(session), session.accountNumber, { ...pageOf(query), status: positionStatusFilter(query.status) }, opts);
    },
  }),

  route({
    method: 'post',
    path: '/v1/executor/positions/{id}/close',
    operationId: 'closeExecutorPosition',
    summary: 'Close a position of the session account',
    tag: TAG,
    access: { executor: true },
    params: positionPath,
    responses: { 200: positionSchema },
    errors: CLOSE_ERRORS,
    handler: ({ req, params, clients, opts }) => {
      const session = executorOf(req);
      return trading.closePosition(clients, scopeFields(session), session.accountNumber, params.id, opts);
    },
  }),
];
