import { PAYOUT_STATUSES, payoutDecider, payoutStatusValue, present, restPayoutSchema, toRestPayout } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import type { Request } from 'express';
import { apiKeyOf, tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, freeText, idPath, objectBody, pageOf, pageQuery, positiveIntegerQuery } from '../http/validation';
import { page, pageSchema } from '../mapping/common';

const TAG = 'Payouts';

export const payoutSchema = restPayoutSchema.openapi('Payout');
export const payoutPageSchema = pageSchema(payoutSchema).openapi('PayoutPage');

const payoutPath = { id: idPath('payout', 'payout id') };

const rejectBody = objectBody({ reason: freeText({ max: 500 }).openapi({ example: 'profit from a pricing error' }) }).openapi('RejectPayoutRequest');
const markPaidBody = objectBody({ reference: freeText({ max: 200 }).openapi({ description: "the firm's reference of the transfer", example: 'WIRE-2026-0117' }) }).openapi(
  'MarkPayoutPaidRequest',
);

/** The deciding API key, as the payout records it (decided_by). */
const deciderOf = (req: Request) => payoutDecider('api_key', apiKeyOf(req).keyId);

/** SPEC 14: the organization's payouts and their approval. */
export const payoutRoutes = [
  route({
    method: 'get',
    path: '/v1/payouts',
    operationId: 'listOrganizationPayouts',
    summary: "The organization's payouts, oldest first",
    description: 'Every payout of every account of the organization (in the key\'s mode), filtered by status (e.g. the pending queue) and account.',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    query: {
      ...pageQuery,
      status: enumQuery(PAYOUT_STATUSES, `status must be one of ${PAYOUT_STATUSES.join(', ')}`, { emptyIsNone: true, description: 'only payouts in this status' }),
      account: positiveIntegerQuery('account', "only this account's payouts"),
    },
    responses: { 200: payoutPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const response = await clients.trading.call.listOrganizationPayouts(
        {
          ...tenantOf(req),
          ...pageOf(query),
          status: query.status === undefined ? tradingv1.PayoutStatus.PAYOUT_STATUS_UNSPECIFIED : payoutStatusValue(query.status),
          account: query.account,
        },
        opts,
      );
      return renderJson(200, page(response.payouts.map(toRestPayout), response.nextPageToken));
    },
  }),

  route({
    method: 'get',
    path: '/v1/payouts/{id}',
    operationId: 'getPayout',
    summary: 'One payout',
    tag: TAG,
    access: { apiKey: 'accounts:read' },
    params: payoutPath,
    responses: { 200: payoutSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.getPayout({ ...tenantOf(req), payoutId: params.id }, opts);
      return renderJson(200, toRestPayout(present(response.payout, 'a payout')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/payouts/{id}/approve',
    operationId: 'approvePayout',
    summary: 'Approve a pending payout: the balance drops by its amount',
    description:
      'pending -> approved in one transaction with the balance change and payout.approved; decided_by is this API key. It re-checks that the account can still pay (active, funded, KYC when its program requires it, balance - amount >= initial balance): 409 payout_not_allowed otherwise. A payout that is not pending is 409 conflict, nothing changed; of two concurrent approvals, one approves.',
    tag: TAG,
    access: { apiKey: 'payouts:write' },
    params: payoutPath,
    responses: { 200: payoutSchema },
    errors: ['not_found', 'conflict', 'payout_not_allowed'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.trading.call.approvePayout({ ...tenantOf(req), payoutId: params.id, decidedBy: deciderOf(req) }, opts);
      return renderJson(200, toRestPayout(present(response.payout, 'a payout')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/payouts/{id}/reject',
    operationId: 'rejectPayout',
    summary: 'Reject a pending payout: its reservation is released',
    description: 'pending -> rejected with the reason (required) and payout.rejected; the balance is unchanged. A payout that is not pending is 409 conflict.',
    tag: TAG,
    access: { apiKey: 'payouts:write' },
    params: payoutPath,
    body: rejectBody,
    responses: { 200: payoutSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.rejectPayout({ ...tenantOf(req), payoutId: params.id, decidedBy: deciderOf(req), reason: body.reason }, opts);
      return renderJson(200, toRestPayout(present(response.payout, 'a payout')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/payouts/{id}/mark-paid',
    operationId: 'markPayoutPaid',
    summary: 'Mark an approved payout paid',
    description: "approved -> paid with the transfer's reference (required) and payout.paid. A payout that is not approved is 409 conflict.",
    tag: TAG,
    access: { apiKey: 'payouts:write' },
    params: payoutPath,
    body: markPaidBody,
    responses: { 200: payoutSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.markPayoutPaid({ ...tenantOf(req), payoutId: params.id, reference: body.reference }, opts);
      return renderJson(200, toRestPayout(present(response.payout, 'a payout')));
    },
  }),
];
