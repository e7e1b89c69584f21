import type { accountsv1 } from '@propdesk/proto';
import { AppError, EVENT_TYPES, restAccountSchema, toRestAccount as restAccountOf, type RestAccount } from '@propdesk/kit';
import { z } from '../http/zod';
import { int64, iso, pageSchema } from './common';

/** The account's REST shape is the kit's (one definition for the gateway, the panel and the SQL fast path). */
export const accountSchema = restAccountSchema.openapi('Account');
export type { RestAccount };

export const traderSchema = z
  .object({ id: z.string().uuid(), name: z.string(), email: z.string(), created_at: z.string().datetime() })
  .strict()
  .openapi('Trader');
export type RestTrader = z.output<typeof traderSchema>;

export const credentialsSchema = z
  .object({ login: z.number().int().describe('the account number'), password: z.string(), server: z.string() })
  .strict()
  .openapi('Credentials');
export type RestCredentials = z.output<typeof credentialsSchema>;

export const eventSchema = z
  .object({
    id: z.string().regex(/^evt_/),
    type: z.enum(EVENT_TYPES),
    created_at: z.string().datetime(),
    organization_id: z.string().uuid(),
    data: z.record(z.string(), z.unknown()).describe('the event data (SPEC section 8)'),
  })
  .strict()
  .openapi('Event');
export type RestEvent = z.output<typeof eventSchema>;

export const accountPageSchema = pageSchema(accountSchema).openapi('AccountPage');
export const assignmentSchema = z.object({ account: accountSchema, trader: traderSchema }).strict().openapi('Assignment');
export const unassignmentSchema = z.object({ account: accountSchema, trader: z.null() }).strict().openapi('Unassignment');

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new AppError('internal_error', `the service answered without ${what}`);
  return value;
}

export function toRestAccount(account: accountsv1.Account | undefined): RestAccount {
  return restAccountOf(required(account, 'an account'));
}

export function toRestTrader(trader: accountsv1.Trader | undefined): RestTrader {
  const t = required(trader, 'a trader');
  return { id: t.id, name: t.name, email: t.email, created_at: iso(t.createdAt) };
}

export function toRestCredentials(credentials: accountsv1.Credentials | undefined): RestCredentials {
  const c = required(credentials, 'credentials');
  return { login: int64(c.login), password: c.password, server: c.server };
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

export function toRestEvent(event: accountsv1.Event): RestEvent {
  return {
    id: event.id,
    type: event.type as RestEvent['type'],
    created_at: iso(event.createdAt),
    organization_id: event.organizationId,
    data: (event.data as Record<string, unknown> | undefined) ?? {},
  };
}
