import { AppError } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { PlanStatus } from '../domain/organization';

export interface VerifiedKey {
  apiKeyId: string;
  organizationId: string;
  scopes: string[];
  planStatus: PlanStatus;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Unknown and revoked keys get the very same error; both cost the same single lookup. */
export async function verifyApiKey(deps: Pick<AuthDeps, 'apiKeys' | 'keyUsage'>, tokenSha256: string): Promise<VerifiedKey> {
  const hash = (tokenSha256 ?? '').toLowerCase();
  const key = SHA256_HEX.test(hash) ? await deps.apiKeys.findByHash(hash) : undefined;
  if (!key || key.revokedAt) throw new AppError('invalid_api_key', 'invalid API key');
  deps.keyUsage.record(key.id, key.lastUsedAt);
  return { apiKeyId: key.id, organizationId: key.organizationId, scopes: key.scopes, planStatus: key.planStatus };
}
