import { changedFields, integerIn, isUuid, KEY_LIMIT_PER_MINUTE, notFound, recordAudit } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { ApiKeyRecord } from '../data/api-keys';
import { keyAudit } from './api-key-audit';

/**
 * A key's own read and write limits per minute (absent: back to the gateway's default). Answers
 * after the watching gateways dropped the key, so the next request on any of them is counted
 * against the new limits. An empty organizationId is an operator acting on any organization.
 */
export async function setApiKeyLimits(
  deps: Pick<AuthDeps, 'sequelize' | 'apiKeys' | 'relay' | 'logger'>,
  input: { organizationId: string; apiKeyId: string; readPerMin?: number; writePerMin?: number },
): Promise<ApiKeyRecord> {
  const readPerMin = input.readPerMin === undefined ? null : integerIn(input.readPerMin, KEY_LIMIT_PER_MINUTE, 'read');
  const writePerMin = input.writePerMin === undefined ? null : integerIn(input.writePerMin, KEY_LIMIT_PER_MINUTE, 'write');
  const organizationId = (input.organizationId ?? '').toLowerCase();
  if ((organizationId !== '' && !isUuid(organizationId)) || !isUuid(input.apiKeyId)) throw notFound('API key');
  const apiKey = await deps.sequelize.transaction(async (transaction) => {
    const result = await deps.apiKeys.setLimits({ organizationId, id: input.apiKeyId.toLowerCase(), readPerMin, writePerMin }, transaction);
    if (!result) throw notFound('API key');
    const changes = changedFields(
      { read_per_min: result.before.readPerMin, write_per_min: result.before.writePerMin },
      { read_per_min: result.key.readPerMin, write_per_min: result.key.writePerMin },
    );
    if (Object.keys(changes).length > 0) await recordAudit(transaction, keyAudit(result.key, 'api_key.set_limits', changes));
    return result.key;
  });
  await deps.relay.publish({ apiKeyId: apiKey.id });
  deps.logger.info({ apiKeyId: apiKey.id, readPerMin, writePerMin }, 'API key limits set');
  return apiKey;
}
