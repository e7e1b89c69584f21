import { createdFields, integerIn, isUuid, KEY_LIFETIME_SECONDS, livemodeOf, notFound, recordAudit, sha256Hex, type Mode } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';
import { newApiKeyToken, normalizeScopes, validApiKeyName } from '../domain/api-key-token';
import { keyAudit, keyFields } from './api-key-audit';

/**
 * The token is returned here only; the database keeps its SHA-256. The key's fingerprint reaches
 * the watching gateways before this answers, so even its first request, from a client IP over
 * its limit, is looked up rather than refused (see WatchInvalidationsResponse.key_fingerprints).
 */
export async function createApiKey(
  deps: Pick<AuthDeps, 'sequelize' | 'organizations' | 'apiKeys' | 'relay'>,
  input: { organizationId: string; mode?: Mode; name: string; scopes: string[]; expiresInSeconds?: number },
): Promise<{ apiKey: ApiKeyRecord; token: string }> {
  const name = validApiKeyName(input.name ?? '');
  const scopes = normalizeScopes(input.scopes ?? []);
  const livemode = livemodeOf(input.mode);
  const expiresInSeconds = input.expiresInSeconds === undefined ? undefined : integerIn(input.expiresInSeconds, KEY_LIFETIME_SECONDS, 'expires_in');
  const organization = isUuid(input.organizationId) ? await deps.organizations.findById(input.organizationId) : undefined;
  if (!organization) throw notFound('organization');
  const { token, prefix } = newApiKeyToken(livemode);
  const tokenSha256 = sha256Hex(token);
  const apiKey = await deps.sequelize.transaction(async (transaction) => {
    const inserted = await deps.apiKeys.insert({ organizationId: organization.id, livemode, name, prefix, tokenSha256, scopes, expiresInSeconds }, transaction);
    await recordAudit(transaction, keyAudit(inserted, 'api_key.create', createdFields(keyFields(inserted))));
    return inserted;
  });
  await deps.relay.publish({ keyFingerprint: tokenSha256.slice(0, 8) });
  return { apiKey, token };
}
