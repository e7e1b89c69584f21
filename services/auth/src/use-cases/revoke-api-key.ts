import { isUuid, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';

/**
 * Revokes once (a repeat answers the first revoked_at), then answers only after the watching
 * gateways dropped the key (see invalidation/hub). The invalidation is published on repeats too,
 * so a retry after a failed propagation completes it.
 */
export async function revokeApiKey(
  deps: Pick<AuthDeps, 'apiKeys' | 'relay'>,
  input: { organizationId: string; apiKeyId: string },
): Promise<ApiKeyRecord> {
  if (!isUuid(input.organizationId) || !isUuid(input.apiKeyId)) throw notFound('API key');
  const apiKey = await deps.apiKeys.revoke(input.organizationId.toLowerCase(), input.apiKeyId.toLowerCase());
  if (!apiKey) throw notFound('API key');
  await deps.relay.publish({ apiKeyId: apiKey.id });
  return apiKey;
}
