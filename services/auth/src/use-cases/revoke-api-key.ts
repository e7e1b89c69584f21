import { isUuid, notFound, recordAudit } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';
import { keyAudit } from './api-key-audit';

/**
 * Revokes once (audited once) (a repeat answers the first revoked_at), then answers only after the watching
 * gateways dropped the key (see invalidation/hub). The invalidation is published on repeats too,
 * so a retry after a failed propagation completes it.
 */
export async function revokeApiKey(
  deps: Pick<AuthDeps, 'sequelize' | 'apiKeys' | 'relay'>,
  input: { organizationId: string; apiKeyId: string },
): Promise<ApiKeyRecord> {
  if (!isUuid(input.organizationId) || !isUuid(input.apiKeyId)) throw notFound('API key');
  const apiKey = await deps.sequelize.transaction(async (transaction) => {
    const result = await deps.apiKeys.revoke(input.organizationId.toLowerCase(), input.apiKeyId.toLowerCase(), transaction);
    if (!result) throw notFound('API key');
    // Revoking again changes nothing, and so records nothing.
    if (result.revokedNow) await recordAudit(transaction, keyAudit(result.key, 'api_key.revoke', { revoked_at: [null, result.key.revokedAt] }));
    return result.key;
  });
  await deps.relay.publish({ apiKeyId: apiKey.id });
  return apiKey;
}
