import { MONEY_STEP, present, toRestPayout } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { exactNumber, objectBody, pageOf, pageQuery } from '../http/validation';
import { accountSchema, toRestAccount } from '../mapping/accounts';
import { page } from '../mapping/common';
import { accountPath } from './accounts';
import { payoutPageSchema, payoutSchema } from './payouts';

const TAG = 'Lifecycle';

const payoutBody = objectBody({
  amount: exactNumber({ unit: 'USD', step: MONEY_STEP }, 'USD; default: the whole closed profit (balance - initial balance)').optional(),
}).openapi('PayoutRequest');

/** SPEC 10: a reset of an evaluation attempt; payouts of a funded account. */
export const lifecycleRoutes = [
  route({
    method: 'post',
    path: '/v1/accounts/{number}/reset',
    operationId: 'resetAccount',
    summary: 'Start a new attempt (one credit)',
    description:
      'One transaction: resting orders cancelled, open positions closed at current prices, balance, equity and peak equity back to the initial balance, status active, attempt + 1, executor sessions revoked, one account credit spent (402 insufficient_credits: nothing changed). A passed or archived account is 409 account_passed / account_archived; a funded one 409 conflict.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    responses: { 200: accountSchema },
    errors: ['not_found', 'insufficient_credits', 'account_passed', 'account_archived', 'conflict', 'unavailable'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.resetAccount({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/payouts',
    operationId: 'createPayout',
    summary: 'Pay out closed profit of a funded account',
    description:
      'The trader gets profit_split_pct of the amount. Without payout_requires_approval the balance drops by the amount at once (status approved, payout.created); with it the payout is pending (payout.requested), its amount reserved and the balance unchanged until it is approved (POST /v1/payouts/{id}/approve). 409 payout_not_allowed, with a message saying why, when there is no closed profit, the amount exceeds what is left of it after pending payouts, the consistency rule does not hold, fewer than min_trading_days trading days passed since the phase started or the last payout, the program requires KYC and the trader is not verified, or the account is not an active funded one.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    body: payoutBody,
    bodyOptional: true,
    responses: { 201: payoutSchema },
    errors: ['invalid_request', 'not_found', 'payout_not_allowed'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.createPayout(
        { ...tenantOf(req), number: params.number, amount: body?.amount },
        opts,
      );
      return renderJson(201, toRestPayout(present(response.payout, 'a payout')));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/payouts',
    operationId: 'listPayouts',
    summary: 'Payouts of an account, oldest first',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: pageQuery,
    responses: { 200: payoutPageSchema },
    errors: ['not_found', 'invalid_cursor'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.trading.call.listPayouts({ ...tenantOf(req), number: params.number, ...pageOf(query) }, opts);
      return renderJson(200, page(response.payouts.map(toRestPayout), response.nextPageToken));
    },
  }),
];
