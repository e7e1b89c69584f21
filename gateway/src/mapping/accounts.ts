import type { accountsv1 } from '@propdesk/proto';
import { present, restAccountSchema, restCredentialsSchema, restEventSchema, restTraderSchema, toRestAccount as restAccountOf, type RestAccount } from '@propdesk/kit';
import { z } from '../http/zod';
import { pageSchema } from './common';

/**
 * The REST shapes of accounts, traders, credentials and events are the kit's (one definition for
 * the gateway, the panel and the SQL fast path); named here for the document.
 */
export const accountSchema = restAccountSchema.openapi('Account');
export type { RestAccount };

export const traderSchema = restTraderSchema.openapi('Trader');
export const credentialsSchema = restCredentialsSchema.openapi('Credentials');
export const eventSchema = restEventSchema.openapi('Event');
export { toRestCredentials, toRestEvent, toRestTrader, type RestCredentials, type RestEvent, type RestTrader } from '@propdesk/kit';

export const accountPageSchema = pageSchema(accountSchema).openapi('AccountPage');
export const assignmentSchema = z.object({ account: accountSchema, trader: traderSchema }).strict().openapi('Assignment');
export const unassignmentSchema = z.object({ account: accountSchema, trader: z.null() }).strict().openapi('Unassignment');

export function toRestAccount(account: accountsv1.Account | undefined): RestAccount {
  return restAccountOf(present(account, 'an account'));
}

const PAGE_OPEN = Buffer.from('{"data":');

/**
 * A json_view page: the accounts arrive already rendered as the REST array, so the body is built
 * around those bytes instead of decoding, mapping and re-encoding every account.
 */
export function accountPageBody(response: accountsv1.ListAccountsResponse): Buffer {
  const close = Buffer.from(`,"next_cursor":${response.nextPageToken ? JSON.stringify(response.nextPageToken) : 'null'}}`);
  return Buffer.concat([PAGE_OPEN, response.accountsJson, close]);
}
