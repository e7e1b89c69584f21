import { createdFields, effectTransaction, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { egressWarnings, validateDescription, validateEndpointUrl, validateEventTypes } from '../domain/endpoint-rules';
import { newEndpointSecret } from '../domain/signature';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/**
 * The endpoint belongs to the caller's organization and mode (SPEC 13: one registered with a test
 * key receives test events only). The secret is returned here and only here; it is stored sealed. The URL is stored as the URL
 * parser normalises it; warnings say when deliveries to it will not arrive as things stand.
 */
export async function createEndpoint(
  deps: Deps,
  input: ScopeFields & { url: string; events: string[]; description?: string },
): Promise<{ endpoint: EndpointRecord; secret: string; warnings: string[] }> {
  const scope = requireScope(input);
  const url = validateEndpointUrl(input.url, deps.allowPrivateNetworks);
  const warnings = egressWarnings(url, deps.egressPorts);
  const events = validateEventTypes(input.events ?? []);
  const description = validateDescription(input.description);
  const secret = newEndpointSecret();
  // The answer, secret included, is recorded with the endpoint: a retry with the same
  // Idempotency-Key gets this endpoint and secret back instead of a second endpoint.
  const created = await effectTransaction(deps.db, async (transaction) => {
    const endpoint = await deps.endpoints.insert({ scope, url, events, description, secretSealed: deps.secrets.seal(secret) }, transaction);
    await recordAudit(transaction, endpointAudit(endpoint, 'webhook.create', createdFields({ url: endpoint.url, events: endpoint.events, description: endpoint.description, status: endpoint.status })));
    return { endpoint, secret, warnings };
  });
  deps.logger.info({ endpointId: created.endpoint.id, organizationId: scope.organizationId, livemode: scope.livemode }, 'webhook endpoint created');
  return created;
}
