/** The event types of SPEC section 8; an endpoint may subscribe to these only. */
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
