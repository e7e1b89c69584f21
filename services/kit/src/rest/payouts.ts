import { tradingv1 } from '@propdesk/proto';
import { z } from 'zod';
import { isoTime, isoTimeOrNull, livemodeSchema, textOrNull } from './common';

/**
 * Payouts (SPEC 10, with SPEC 14's approval) and balance adjustments in their REST shape, written
 * once for the gateway (which names the schemas in its document) and the panel.
 */

export const PAYOUT_STATUSES = ['pending', 'approved', 'rejected', 'paid'] as const;
export type PayoutStatusName = (typeof PAYOUT_STATUSES)[number];

const PAYOUT_STATUS_VALUES: Record<PayoutStatusName, tradingv1.PayoutStatus> = {
  pending: tradingv1.PayoutStatus.PAYOUT_STATUS_PENDING,
  approved: tradingv1.PayoutStatus.PAYOUT_STATUS_APPROVED,
  rejected: tradingv1.PayoutStatus.PAYOUT_STATUS_REJECTED,
  paid: tradingv1.PayoutStatus.PAYOUT_STATUS_PAID,
};

export function payoutStatusValue(name: PayoutStatusName): tradingv1.PayoutStatus {
  return PAYOUT_STATUS_VALUES[name];
}

/** The name of the contract's value; undefined for UNSPECIFIED or an unknown value. */
export function payoutStatusName(value: tradingv1.PayoutStatus | undefined): PayoutStatusName | undefined {
  return PAYOUT_STATUSES.find((name) => PAYOUT_STATUS_VALUES[name] === value);
}

/** Who approved or rejected a payout: an API key or a panel user, by id. */
export const DECIDER_TYPES = ['api_key', 'user'] as const;
export type DeciderTypeName = (typeof DECIDER_TYPES)[number];

const DECIDER_TYPE_VALUES: Record<DeciderTypeName, tradingv1.DeciderType> = {
  api_key: tradingv1.DeciderType.DECIDER_TYPE_API_KEY,
  user: tradingv1.DeciderType.DECIDER_TYPE_USER,
};

/** The contract's form of a decider (what the gateway and the panel send with a decision). */
export function payoutDecider(type: DeciderTypeName, id: string): tradingv1.PayoutDecider {
  return { type: DECIDER_TYPE_VALUES[type], id };
}

export function deciderTypeName(value: tradingv1.DeciderType | undefined): DeciderTypeName | undefined {
  return DECIDER_TYPES.find((name) => DECIDER_TYPE_VALUES[name] === value);
}

const deciderSchema = z.object({ type: z.enum(DECIDER_TYPES), id: z.string() }).strict();

/** A payout as REST shows it (SPEC 10 and 14). */
export const restPayoutSchema = z
  .object({
    id: z.string().uuid(),
    account: z.number().int(),
    amount: z.number(),
    profit_split_pct: z.number().describe("the trader's share, in percent"),
    trader_share: z.number(),
    firm_share: z.number(),
    balance_after: z.number().nullable().describe('the balance once the amount left it; null while pending and for a rejected payout'),
    created_at: z.string().datetime(),
    livemode: livemodeSchema,
    status: z.enum(PAYOUT_STATUSES).describe('pending (its amount reserved) until approved or rejected; approved at once without payout_requires_approval; paid once marked paid'),
    requested_at: z.string().datetime(),
    decided_at: z.string().datetime().nullable(),
    decided_by: deciderSchema.nullable().describe('who approved or rejected it; null when it needed no approval'),
    reason: z.string().nullable().describe('why it was rejected'),
    reference: z.string().nullable().describe("the firm's reference of the transfer, once paid"),
    paid_at: z.string().datetime().nullable(),
  })
  .strict();

export type RestPayout = z.output<typeof restPayoutSchema>;

export function toRestPayout(p: tradingv1.Payout): RestPayout {
  const decider = p.decidedBy && deciderTypeName(p.decidedBy.type);
  return {
    id: p.id,
    account: Number(p.account),
    amount: p.amount,
    profit_split_pct: p.profitSplitPct,
    trader_share: p.traderShare,
    firm_share: p.firmShare,
    balance_after: p.balanceAfter ?? null,
    created_at: isoTime(p.createdAt),
    livemode: p.livemode,
    status: payoutStatusName(p.status) ?? 'approved',
    requested_at: isoTime(p.requestedAt ?? p.createdAt),
    decided_at: isoTimeOrNull(p.decidedAt),
    decided_by: decider && p.decidedBy ? { type: decider, id: p.decidedBy.id } : null,
    reason: textOrNull(p.reason),
    reference: textOrNull(p.reference),
    paid_at: isoTimeOrNull(p.paidAt),
  };
}

/** POST /v1/accounts/{n}/adjustments' answer (SPEC 14). */
export const restAdjustmentSchema = z
  .object({
    id: z.string().uuid().describe("the balance deal's id"),
    account: z.number().int(),
    amount: z.number().describe('positive credits, negative debits'),
    reason: z.string(),
    balance_after: z.number(),
    created_at: z.string().datetime(),
  })
  .strict();

export type RestAdjustment = z.output<typeof restAdjustmentSchema>;

export function toRestAdjustment(a: tradingv1.Adjustment): RestAdjustment {
  return {
    id: a.id,
    account: Number(a.account),
    amount: a.amount,
    reason: a.reason,
    balance_after: a.balanceAfter,
    created_at: isoTime(a.createdAt),
  };
}
