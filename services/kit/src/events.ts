/**
 * The event types of SPEC section 8: what the accounts service emits, what webhook endpoints may
 * subscribe to, and what the event feed filters on. One list, shared by every service.
 */
export const EVENT_TYPES = [
  'account.breached',
  'account.passed',
  'account.flagged',
  'account.created',
  'account.assigned',
  'account.archived',
  'position.opened',
  'position.closed',
  'order.rejected',
  'credits.low',
  // SPEC section 10.
  'account.warning',
  'account.reset',
  'payout.created',
  // SPEC section 14: payout approval and the operator controls.
  'payout.requested',
  'payout.approved',
  'payout.rejected',
  'payout.paid',
  'account.halted',
  'account.resumed',
  'account.reinstated',
  'account.adjusted',
  // SPEC 15: a daily loss (daily_lock) or the day's profit cap (daily_profit_cap) locked the account
  // until the next trading day ({account, rule, until}).
  'account.locked',
  // SPEC 13: a test clock finished advancing ({id, frozen_time}).
  'test_clock.ready',
  // SPEC section 17: the webhooks service disabled one of the organization's endpoints.
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The types another service owns and hands to the accounts service's outbox (AppendEvents), so the
 * feed and the webhooks' fan-out carry them: the accounts service appends these and no other.
 */
export const FORWARDED_EVENT_TYPES = ['webhook_endpoint.disabled'] as const satisfies readonly EventType[];
