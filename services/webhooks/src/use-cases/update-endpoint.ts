import { AppError, changedFields, effectTransaction, notFound, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointChanges, EndpointRecord } from '../data/endpoints-repository';
import { egressWarnings, validateDescription, validateEndpointUrl, validateEventTypes } from '../domain/endpoint-rules';
import { endpointAudit } from './endpoint-audit';
import { requireScope } from './require-scope';

/** The fields an update may change (AIP-134 update_mask paths). */
const UPDATABLE = ['url', 'events', 'description'] as const;
type Updatable = (typeof UPDATABLE)[number];

function isUpdatable(path: string): path is Updatable {
  return (UPDATABLE as readonly string[]).includes(path);
}

function pick(endpoint: EndpointRecord, fields: readonly Updatable[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, endpoint[field]]));
}

/**
 * PATCH /v1/webhooks/{id} (SPEC 17): the fields the mask names, under registration's rules (an
 * HTTPS url the SSRF rules allow, known event types, the description's text rule); the others keep
 * their values. The url is checked again at every connection (http-sender.ts), as a registered
 * one is. Deliveries not yet made go to the new url; events already fanned out are still
 * delivered, whatever the new event types. The secret stays and is not answered.
 */
export async function updateEndpoint(
  deps: Deps,
  input: ScopeFields & { endpointId: string; url: string; events: string[]; description: string; updateMask?: string[] },
): Promise<{ endpoint: EndpointRecord; warnings: string[] }> {
  const scope = requireScope(input);
  const paths = [...new Set(input.updateMask ?? [])];
  if (paths.length === 0) throw new AppError('invalid_request', `nothing to change: name at least one of ${UPDATABLE.join(', ')}`, 'update_mask');
  const unknown = paths.filter((p) => !isUpdatable(p));
  if (unknown.length > 0) throw new AppError('invalid_request', `cannot change ${unknown.join(', ')}: only ${UPDATABLE.join(', ')}`, 'update_mask');
  const changes: EndpointChanges = {};
  if (paths.includes('url')) changes.url = validateEndpointUrl(input.url, deps.allowPrivateNetworks);
  if (paths.includes('events')) changes.events = validateEventTypes(input.events ?? []);
  if (paths.includes('description')) changes.description = validateDescription(input.description);
  const updated = await effectTransaction(deps.db, async (transaction) => {
    const before = await deps.endpoints.find(scope, input.endpointId, transaction);
    const endpoint = before && (await deps.endpoints.update(scope, before.id, changes, transaction));
    if (!before || !endpoint) throw notFound('webhook endpoint');
    // The named fields whose value moved; an edit that changes nothing records nothing.
    const fields = paths.filter(isUpdatable);
    const changed = changedFields(pick(before, fields), pick(endpoint, fields));
    if (Object.keys(changed).length > 0) await recordAudit(transaction, endpointAudit(endpoint, 'webhook.update', changed));
    return { endpoint, warnings: egressWarnings(endpoint.url, deps.egressPorts) };
  });
  deps.logger.info({ endpointId: updated.endpoint.id, organizationId: scope.organizationId, changed: paths }, 'webhook endpoint updated');
  return updated;
}
