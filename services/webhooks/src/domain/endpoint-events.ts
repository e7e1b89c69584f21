import type { EventType, TenantScope } from '@propdesk/kit';

/** SPEC 17: an endpoint of the organization was disabled. */
export const ENDPOINT_DISABLED: EventType = 'webhook_endpoint.disabled';

/** The data of webhook_endpoint.disabled: the endpoint, its url, and why. */
export type EndpointDisabledData = {
  id: string;
  url: string;
  reason: string;
};

/** The event an endpoint's disabling emits, in its organization and mode. */
export function endpointDisabledEvent(
  endpoint: TenantScope & { id: string; url: string },
  reason: string,
): TenantScope & { type: EventType; data: EndpointDisabledData } {
  return {
    organizationId: endpoint.organizationId,
    livemode: endpoint.livemode,
    type: ENDPOINT_DISABLED,
    data: { id: endpoint.id, url: endpoint.url, reason },
  };
}

/**
 * The endpoint an event is about, which it is not delivered to: webhook_endpoint.disabled goes to
 * the organization's other endpoints (the disabled one would only be skipped, and re-enabling it
 * must not tell it of its own disabling). Null for every other event.
 */
export function endpointAbout(type: string, data: Record<string, unknown>): string | null {
  return type === ENDPOINT_DISABLED && typeof data.id === 'string' ? data.id : null;
}
