import { AppError, isUuid } from '@propdesk/kit';
import type { AuthDeps } from '../deps';

export type BeginResult =
  | { state: 'acquired' }
  | { state: 'in_progress' }
  | { state: 'completed'; responseStatus: number; responseBody: Buffer };

export function validIdempotencyKey(input: { apiKeyId: string; idempotencyKey: string }): { apiKeyId: string; idempotencyKey: string } {
  if (!isUuid(input.apiKeyId ?? '')) throw new AppError('invalid_request', 'api_key_id must be a uuid', 'api_key_id');
  const key = input.idempotencyKey ?? '';
  if (key.length < 1 || key.length > 255) throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters', 'idempotency_key');
  return { apiKeyId: input.apiKeyId.toLowerCase(), idempotencyKey: key };
}

/**
 * Claims the (key, Idempotency-Key) record: first caller acquires; later callers get the stored
 * answer, "in progress", or take over a record whose lock expired (its gateway died). A few
 * rounds cover races with a concurrent purge, completion or takeover.
 */
export async function beginIdempotentRequest(
  deps: Pick<AuthDeps, 'idempotency'>,
  input: { apiKeyId: string; idempotencyKey: string; requestFingerprint: string },
): Promise<BeginResult> {
  const key = validIdempotencyKey(input);
  const fingerprint = input.requestFingerprint ?? '';
  if (fingerprint.length < 1 || fingerprint.length > 128) {
    throw new AppError('invalid_request', 'request_fingerprint must be 1 to 128 characters', 'request_fingerprint');
  }
  for (let round = 0; round < 3; round += 1) {
    if (await deps.idempotency.tryInsert(key, fingerprint)) return { state: 'acquired' };
    const record = await deps.idempotency.find(key);
    if (!record) continue;
    if (record.requestFingerprint !== fingerprint) {
      throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', 'idempotency_key');
    }
    if (record.state === 'completed') {
      return { state: 'completed', responseStatus: record.responseStatus ?? 0, responseBody: record.responseBody ?? Buffer.alloc(0) };
    }
    if (!record.lockExpired) return { state: 'in_progress' };
    if (await deps.idempotency.takeOver(key)) return { state: 'acquired' };
  }
  return { state: 'in_progress' };
}
