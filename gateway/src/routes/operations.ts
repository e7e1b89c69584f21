import { KYC_STATUSES, kycStatusValue, MAX_INITIAL_BALANCE, MONEY_STEP, present, restAdjustmentSchema, toRestAdjustment } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { exactNumber, freeText, idPath, objectBody } from '../http/validation';
import { z } from '../http/zod';
import { accountSchema, toRestAccount, toRestTrader, traderSchema } from '../mapping/accounts';
import { accountPath } from './accounts';
import { programPath } from './programs';

const TAG = 'Operations';

/** Every reason of SPEC 14 is required. */
const reason = (example: string) => freeText({ max: 500 }).openapi({ description: 'required: why', example });

const haltBody = objectBody({ reason: reason('incident: price feed glitch') }).openapi('HaltRequest');
const reinstateBody = objectBody({ reason: reason('breach caused by a bad quote') }).openapi('ReinstateRequest');
const adjustmentBody = objectBody({
  amount: exactNumber({ unit: 'USD', step: MONEY_STEP, nonZero: true, max: MAX_INITIAL_BALANCE }, 'USD; positive credits, negative debits, not 0').openapi({ example: -250 }),
  reason: reason('commission refund'),
}).openapi('AdjustmentRequest');
const kycBody = objectBody({
  status: z.enum(KYC_STATUSES),
  reference: freeText({ max: 200 }).optional().openapi({ description: "the firm's reference of the decision (its KYC provider's case id)", example: 'KYC-88213' }),
}).openapi('KycRequest');

const adjustmentSchema = restAdjustmentSchema.openapi('Adjustment');
const programHaltSchema = z
  .object({ program: z.string(), accounts: z.number().int().min(0).describe('the number of accounts it changed') })
  .strict()
  .openapi('ProgramHalt');

/** SPEC 14's operator controls and the KYC gate. */
export const operationRoutes = [
  route({
    method: 'post',
    path: '/v1/accounts/{number}/halt',
    operationId: 'haltAccount',
    summary: 'Halt trading on an account',
    description:
      'trading_halted: true: new orders (through the API and the executor) are 422 order_rejected, rule halted; open positions stay and evaluation goes on. account.halted {account, reason}. An already halted account is 409 conflict; a passed or archived one 409 account_passed / account_archived.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    body: haltBody,
    responses: { 200: accountSchema },
    errors: ['invalid_request', 'not_found', 'conflict', 'account_passed', 'account_archived'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.accounts.call.haltAccount({ ...tenantOf(req), number: params.number, reason: body.reason }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/resume',
    operationId: 'resumeAccount',
    summary: 'Lift the halt of an account',
    description: 'account.resumed. An account that is not halted is 409 conflict.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    responses: { 200: accountSchema },
    errors: ['not_found', 'conflict'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.resumeAccount({ ...tenantOf(req), number: params.number }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/reinstate',
    operationId: 'reinstateAccount',
    summary: 'Reinstate a breached account',
    description:
      'active again in the same attempt, balance and positions as the breach left them; the breach stays in flags with reinstated_at and reinstated_reason; account.reinstated. The engine evaluates the account again at once (one still below a limit breaches again). Any status but breached is 409 conflict, nothing changed.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    body: reinstateBody,
    responses: { 200: accountSchema },
    errors: ['invalid_request', 'not_found', 'conflict'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.reinstateAccount({ ...tenantOf(req), number: params.number, reason: body.reason }, opts);
      return renderJson(200, toRestAccount(response.account));
    },
  }),

  route({
    method: 'post',
    path: '/v1/accounts/{number}/adjustments',
    operationId: 'adjustBalance',
    summary: 'Adjust the balance (a balance deal)',
    description:
      'A deal of type balance in the trades (profit = amount), balance and equity moved by the amount, account.adjusted; the account is evaluated at once, so a debit can breach it. An active or breached account; a passed or archived one is 409 account_passed / account_archived; a debit below a zero balance is 400 naming amount.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: accountPath,
    body: adjustmentBody,
    responses: { 201: adjustmentSchema },
    errors: ['invalid_request', 'not_found', 'account_passed', 'account_archived'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.trading.call.adjustBalance({ ...tenantOf(req), number: params.number, amount: body.amount, reason: body.reason }, opts);
      return renderJson(201, toRestAdjustment(present(response.adjustment, 'an adjustment')));
    },
  }),

  route({
    method: 'post',
    path: '/v1/programs/{name}/halt',
    operationId: 'haltProgram',
    summary: 'Halt trading on every account of a program',
    description:
      "Every account of the program (in the key's mode) that is active or breached and not halted yet is halted, one account.halted each, in one transaction; the answer counts them.",
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: programPath,
    body: haltBody,
    responses: { 200: programHaltSchema },
    errors: ['invalid_request', 'not_found'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.accounts.call.haltProgram({ ...tenantOf(req), name: params.name, reason: body.reason }, opts);
      return renderJson(200, { program: response.program, accounts: response.accounts });
    },
  }),

  route({
    method: 'post',
    path: '/v1/programs/{name}/resume',
    operationId: 'resumeProgram',
    summary: 'Lift the halt of every account of a program',
    description: 'Every halted account of the program, one account.resumed each; the answer counts them.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: programPath,
    responses: { 200: programHaltSchema },
    errors: ['not_found'],
    async handler({ req, params, clients, opts }) {
      const response = await clients.accounts.call.resumeProgram({ ...tenantOf(req), name: params.name }, opts);
      return renderJson(200, { program: response.program, accounts: response.accounts });
    },
  }),

  route({
    method: 'post',
    path: '/v1/traders/{id}/kyc',
    operationId: 'setTraderKyc',
    summary: "Record a trader's KYC status",
    description: 'A funded phase with requires_kyc pays out only to a verified trader. The reference, when given, is kept with the decision.',
    tag: TAG,
    access: { apiKey: 'accounts:write' },
    params: { id: idPath('trader', 'trader id') },
    body: kycBody,
    responses: { 200: traderSchema },
    errors: ['invalid_request', 'not_found'],
    async handler({ req, params, body, clients, opts }) {
      const response = await clients.accounts.call.setTraderKyc(
        { ...tenantOf(req), traderId: params.id, status: kycStatusValue(body.status), reference: body.reference },
        opts,
      );
      return renderJson(200, toRestTrader(response.trader));
    },
  }),
];
