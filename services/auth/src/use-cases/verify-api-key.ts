import { AppError } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { PlanStatus } from '../domain/organization';

export interface VerifiedKey {
  apiKeyId: string;
  organizationId: string;
  livemode: boolean;
  scopes: string[];
  planStatus: PlanStatus;
  /** Milliseconds the key stays valid from the moment the database read it; null: no expiry. */
  expiresInMs: number | null;
  readPerMin: number | null;
  writePerMin: number | null;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Unknown, revoked and expired keys get the very same error; each costs the same single lookup. */
export async function verifyApiKey(deps: Pick<AuthDeps, 'apiKeys' | 'keyUsage'>, tokenSha256: string): Promise<VerifiedKey> {
  const hash = (tokenSha256 ?? '').toLowerCase();
  const key = SHA256_HEX.test(hash) ? await deps.apiKeys.findByHash(hash) : undefined;
  if (!key || key.inactive) throw new AppError('invalid_api_key', 'invalid API key');
  deps.keyUsage.record(key.id, key.lastUsedAt);
  return {
    apiKeyId: key.id,
    organizationId: key.organizationId,
    livemode: key.livemode,
    scopes: key.scopes,
    planStatus: key.planStatus,
    expiresInMs: key.expiresInMs,
    readPerMin: key.readPerMin,
    writePerMin: key.writePerMin,
  };
}
