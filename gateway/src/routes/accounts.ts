import { accountsv1 } from '@propdesk/proto';
import { ACCOUNT_STATUSES, MAX_INITIAL_BALANCE, MONEY_STEP, accountStatusValue } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { booleanQuery, emailAddress, enumQuery, exactNumber, freeText, objectBody, pageOf, pageQuery, positiveIntegerPath, stringQuery } from '../http/validation';
import { z } from '../http/zod';
import {
  accountPageBody,
  accountPageSchema,
  accountSchema,
  assignmentSchema,
  credentialsSchema,
  toRestAccount,
  toRestCredentials,
  toRestTrader,
  unassignmentSchema,
} from '../mapping/accounts';

const TAG = 'Accounts';

/** {number}: the account of the path. */
export const accountPath = { number: positiveIntegerPath('number', 'account number') };

const createAccountsBody = objectBody({
  count: z.number().int().min(1).max(100),
  program: freeText({ max: 64 }).optional().openapi({ description: 'default: standard', example: 'standard' }),
  initial_balance: exactNumber({ unit: 'USD', step: MONEY_STEP, max: MAX_INITIAL_BALANCE }, "USD; default: the program's").optional(),
  test_clock: z
    .string()
    .max(64)
    .regex(/^clock_[0-9a-f]{32}$/, 'must be a test clock id (clock_...)')
    .optional()
    .openapi({
      description:
        "test mode: the test clock (clock_...) the accounts live on: its time and its prices are theirs (a live key naming one: 403 forbidden; an unknown or deleted clock: 400)",
    }),
}).openapi('CreateAccountsRequest');

export const traderBody = objectBody({
  name: freeText({ max: 200 }).openapi({ description: 'stored exactly as sent', example: 'Jane Trader' }),
  email: emailAddress().openapi({ example: 'jane@example.com' }),
}).openapi('TraderRequest');

const accountListSchema = z.object({ data: z.array(accountSchema) }).strict().openapi('AccountList');

export const accountRoutes = [
  route({
    method: 'get',
    path: '/v1/accounts',
    operationId: 'listAccounts',
    summary: 'List accounts',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    query: {
      trader_id: stringQuery('only the accounts of this trader', 'uuid', 36),
      ...pageQuery,
      status: enumQuery(ACCOUNT_STATUSES, `status must be one of ${ACCOUNT_STATUSES.join(', ')}`),
      assigned: booleanQuery('assigned must be true or false', 'only assigned (true) or unassigned (false) accounts'),
    },
    responses: { 200: accountPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.listAccounts(
        {
          ...tenantOf(req),
          ...pageOf(query),
          status: query.status === undefined ? accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED : accountStatusValue(query.status),
          assigned: query.assigned,
          traderId: query.trader_id,
          jsonView: true,
        },
        opts,
      );
      return { status: 200, body: accountPageBody(response) };
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts',
    operationId: 'createAccounts',
    summary: 'Provision 1-100 accounts, one credit each',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    body: createAccountsBody,
    responses: { 201: accountListSchema },
    errors: ['invalid_request', 'insufficient_credits', 'conflict', 'forbidden'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.accounts.call.createAccounts(
        { ...tenantOf(req), count: body.count, program: body.program ?? '', initialBalance: body.initial_balance ?? 0, testClockId: body.test_clock },
        opts,
      );
      return renderJson(201, { data: response.accounts.map(toRestAccount) });
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/claim',
    operationId: 'claimAccount',
    summary: 'Assign the next unassigned account',
    description: 'Atomically assigns the lowest-numbered active unassigned account to the trader (created if new).',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    body: traderBody,
    responses: { 200: assignmentSchema },
    errors: ['invalid_request', 'no_unassigned_accounts'],
    async handler({ req, body, clients, opts }) {
      const response = await clients.accounts.call.claimAccount({ ...tenantOf(req), name: body.name, email: body.email }, opts);
      return renderJson(200, { account: toRestAccount(response.account), trader: toRestTrader(response.trader) });
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}',
    operationId: 'getAccount',
    summary: 'One account',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    responses: { 200: accountSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.getAccount({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'put',
    path: '/v1/accounts/{number}/trader',
    operationId: 'assignTrader',
    summary: 'Create the trader if new and assign',
    description: "A new holder revokes the account's live executor sessions; the same holder again changes nothing.",
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    body: traderBody,
    responses: { 200: assignmentSchema },
    errors: ['invalid_request', 'not_found', 'account_archived', 'account_breached'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.accounts.call.assignTrader(
        { ...tenantOf(req), number: params.number, name: body.name, email: body.email },
        opts,
      );
      return renderJson(200, { account: toRestAccount(response.account), trader: toRestTrader(response.trader) });
    },
  }),

  route({
    method: 'delete',
    path: '/v1/accounts/{number}/trader',
    operationId: 'unassignTrader',
    summary: 'Unassign',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    responses: { 200: unassignmentSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.unassignTrader({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, { account: toRestAccount(response.account), trader: null });
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/archive',
    operationId: 'archiveAccount',
    summary: 'Take out of circulation',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    responses: { 200: accountSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.archiveAccount({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/credentials',
    operationId: 'getCredentials',
    summary: 'Executor credentials',
    tag: TAG,
    access: { apiKey: 'credentials:read' },
    params: accountPath,
    responses: { 200: credentialsSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.getCredentials({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestCredentials(response.credentials));
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/credentials/rotate',
    operationId: 'rotateCredentials',
    summary: 'New executor password; revokes live sessions',
    tag: TAG,
    access: { apiKey: 'credentials:read' },
    params: accountPath,
    responses: { 200: credentialsSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.rotateCredentials({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestCredentials(response.credentials));
    },
  }),
];
