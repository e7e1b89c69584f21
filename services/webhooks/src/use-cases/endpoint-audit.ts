import type { AuditChange } from '@propdesk/kit';
import type { EndpointRecord } from '../data/endpoints-repository';

/**
 * The audit entries of endpoint changes (SPEC 14): target webhook, the endpoint's id, in its
 * organization and mode. Its secrets are never part of one (nor would the kit keep them).
 */
export function endpointAudit(endpoint: EndpointRecord, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope: { organizationId: endpoint.organizationId, livemode: endpoint.livemode }, action, target: { type: 'webhook', id: endpoint.id }, changes };
}
