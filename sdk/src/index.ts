/**
 * @propdesk/sdk: the PropDesk API for TypeScript and Node 20 (native fetch, no dependency at run
 * time but ajv for the conformance check).
 *
 *   import { PropDesk } from '@propdesk/sdk';
 *   const pd = new PropDesk({ apiKey: process.env.PROPDESK_API_KEY!, baseUrl: 'https://api.example.com' });
 *   for await (const account of pd.listAccounts({ status: 'active' })) console.log(account.number);
 *   const { account, trader } = await pd.claimAccount({ name: 'Jane Trader', email: 'jane@example.com' });
 */
export { PropDesk } from './client';
export { PropDeskConnectionError, PropDeskError } from './errors';
export { Paginator, type Page } from './paginate';
export type { AnswerInfo, ClientOptions, RequestOptions } from './transport';
export { verifyWebhook, webhooks, WebhookVerificationError, type VerificationFailure, type VerifyOptions, type WebhookHeaders } from './webhooks';
export type { Account, Event, MethodArgs, MethodResult, OperationMethods, Params, PathArgs, Schemas, Success, Trader, WebhookEvent, WebhookEventOf, WebhookEventType } from './types';
export { OPERATIONS, type OperationId, type OperationSpec } from './__generated__/operations';
export type { components, operations, paths, webhooks as WebhookDeliveries } from './__generated__/openapi';
