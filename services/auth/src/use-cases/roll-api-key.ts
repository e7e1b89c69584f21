import { AppError, createdFields, integerIn, isUuid, KEY_LIFETIME_SECONDS, notFound, OVERLAP_SECONDS, recordAudits, sha256Hex } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';
import { newApiKeyToken } from '../domain/api-key-token';
import { keyAudit, keyFields } from './api-key-audit';

/**
 * SPEC section 12: a new key with the old one's name, scopes, limits and mode (SPEC 13); the old key keeps working
 * for the overlap (`previous_expires_in`, never longer than it had left) so an integrator can
 * deploy the new token first. A revoked or expired key cannot be rolled (conflict). Answers after
 * the watching gateways dropped the old key, so none serves it from cache past its new expiry,
 * and learned the new key's fingerprint.
 */
export async function rollApiKey(
  deps: Pick<AuthDeps, 'sequelize' | 'apiKeys' | 'relay' | 'logger'>,
  input: { organizationId: string; apiKeyId: string; previousExpiresInSeconds?: number; expiresInSeconds?: number },
): Promise<{ apiKey: ApiKeyRecord; token: string; previous: ApiKeyRecord }> {
  const previousExpiresInSeconds = integerIn(input.previousExpiresInSeconds ?? OVERLAP_SECONDS.default, OVERLAP_SECONDS, 'previous_expires_in');
  const expiresInSeconds = input.expiresInSeconds === undefined ? undefined : integerIn(input.expiresInSeconds, KEY_LIFETIME_SECONDS, 'expires_in');
  if (!isUuid(input.organizationId) || !isUuid(input.apiKeyId)) throw notFound('API key');
  const organizationId = input.organizationId.toLowerCase();
  const rolled = await deps.sequelize.transaction(async (transaction) => {
    const old = await deps.apiKeys.findForUpdate(organizationId, input.apiKeyId.toLowerCase(), transaction);
    if (!old) throw notFound('API key');
    if (!old.active) throw new AppError('conflict', 'a revoked or expired key cannot be rolled');
    const { token, prefix } = newApiKeyToken(old.record.livemode);
    const tokenSha256 = sha256Hex(token);
    const apiKey = await deps.apiKeys.insert(
      {
        organizationId,
        livemode: old.record.livemode,
        name: old.record.name,
        prefix,
        tokenSha256,
        scopes: old.record.scopes,
        expiresInSeconds,
        readPerMin: old.record.readPerMin,
        writePerMin: old.record.writePerMin,
      },
      transaction,
    );
    const previous = await deps.apiKeys.expireWithin(old.record.id, previousExpiresInSeconds, transaction);
    // Two changes: the old key now expires (and names its successor), the new key exists.
    await recordAudits(transaction, [
      keyAudit(previous, 'api_key.roll', { expires_at: [old.record.expiresAt, previous.expiresAt], replaced_by: [null, apiKey.id] }),
      keyAudit(apiKey, 'api_key.create', createdFields({ ...keyFields(apiKey), rolled_from: previous.id })),
    ]);
    return { apiKey, previous, token, tokenSha256 };
  });
  await deps.relay.publish({ apiKeyId: rolled.previous.id, keyFingerprint: rolled.tokenSha256.slice(0, 8) });
  deps.logger.info({ apiKeyId: rolled.previous.id, newApiKeyId: rolled.apiKey.id, previousExpiresAt: rolled.previous.expiresAt }, 'API key rolled');
  return { apiKey: rolled.apiKey, token: rolled.token, previous: rolled.previous };
}
