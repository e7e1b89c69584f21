import { typedEvent, type EventData, type EventType, type TenantScope } from '@propdesk/kit';

/** SPEC 17: an endpoint of the organization was disabled. */
export const ENDPOINT_DISABLED = 'webhook_endpoint.disabled' satisfies EventType;

/** The data of webhook_endpoint.disabled (the kit's event catalog): the endpoint, its url, and why. */
export type EndpointDisabledData = EventData<typeof ENDPOINT_DISABLED>;

/** The event an endpoint's disabling emits, in its organization and mode. */
export function endpointDisabledEvent(
  endpoint: TenantScope & { id: string; url: string },
  reason: string,
): TenantScope & { type: typeof ENDPOINT_DISABLED; data: EndpointDisabledData } {
  return {
    organizationId: endpoint.organizationId,
    livemode: endpoint.livemode,
    ...typedEvent(ENDPOINT_DISABLED, { id: endpoint.id, url: endpoint.url, reason }),
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
