import { accountsv1 } from '@propdesk/proto';
import { z } from 'zod';
import { EVENT_TYPES } from '../events';
import { isoTime, livemodeSchema, present, textOrNull } from './common';

/** Traders, executor credentials and events in their REST shape (SPEC sections 7 and 8). */

/** SPEC 14: a trader's KYC status; a new trader is unverified. */
export const KYC_STATUSES = ['unverified', 'pending', 'verified', 'rejected'] as const;
export type KycStatusName = (typeof KYC_STATUSES)[number];

const KYC_STATUS_VALUES: Record<KycStatusName, accountsv1.KycStatus> = {
  unverified: accountsv1.KycStatus.KYC_STATUS_UNVERIFIED,
  pending: accountsv1.KycStatus.KYC_STATUS_PENDING,
  verified: accountsv1.KycStatus.KYC_STATUS_VERIFIED,
  rejected: accountsv1.KycStatus.KYC_STATUS_REJECTED,
};

/** The contract's value of a KYC status name. */
export function kycStatusValue(name: KycStatusName): accountsv1.KycStatus {
  return KYC_STATUS_VALUES[name];
}

/** The name of the contract's value; undefined for UNSPECIFIED or an unknown value. */
export function kycStatusName(value: accountsv1.KycStatus | undefined): KycStatusName | undefined {
  return KYC_STATUSES.find((name) => KYC_STATUS_VALUES[name] === value);
}

export const restTraderSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    email: z.string(),
    created_at: z.string().datetime(),
    livemode: livemodeSchema,
    kyc_status: z.enum(KYC_STATUSES).describe('SPEC 14: a funded phase with requires_kyc pays out only to a verified trader'),
    kyc_reference: z.string().nullable().describe("the firm's reference of the last KYC decision, if any"),
  })
  .strict();
export type RestTrader = z.output<typeof restTraderSchema>;

export function toRestTrader(message: accountsv1.Trader | undefined): RestTrader {
  const trader = present(message, 'a trader');
  return {
    id: trader.id,
    name: trader.name,
    email: trader.email,
    created_at: isoTime(trader.createdAt),
    livemode: trader.livemode,
    kyc_status: kycStatusName(trader.kycStatus) ?? 'unverified',
    kyc_reference: textOrNull(trader.kycReference),
  };
}

export const restCredentialsSchema = z
  .object({ login: z.number().int().describe('the account number'), password: z.string(), server: z.string() })
  .strict();
export type RestCredentials = z.output<typeof restCredentialsSchema>;

export function toRestCredentials(message: accountsv1.Credentials | undefined): RestCredentials {
  const credentials = present(message, 'credentials');
  return { login: Number(credentials.login), password: credentials.password, server: credentials.server };
}

export const restEventSchema = z
  .object({
    id: z.string().regex(/^evt_/),
    type: z.enum(EVENT_TYPES),
    created_at: z.string().datetime(),
    organization_id: z.string().uuid(),
    livemode: livemodeSchema,
    sequence: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe(
        "the event's place in its account's events (data.account): 1 for the account's first event, then +1 for each following one in commit order, with no gaps and no repeats; null for an event about no account (credits.low, webhook_endpoint.disabled). A receiver that sees a number skip asks GET /v1/events?account={n}&after_sequence={last seen}",
      ),
    data: z.record(z.string(), z.unknown()).describe('the event data (SPEC section 8)'),
  })
  .strict();
export type RestEvent = z.output<typeof restEventSchema>;

export function toRestEvent(event: accountsv1.Event): RestEvent {
  return {
    id: event.id,
    type: event.type as RestEvent['type'],
    created_at: isoTime(event.createdAt),
    organization_id: event.organizationId,
    livemode: event.livemode,
    sequence: event.sequence === undefined ? null : Number(event.sequence),
    data: (event.data as Record<string, unknown> | undefined) ?? {},
  };
}
