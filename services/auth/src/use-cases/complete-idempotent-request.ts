import { AppError, notFound } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import { validIdempotencyKey } from './begin-idempotent-request';

/** Stores the answer for replays, or (release) forgets the record so a retry executes again. */
export async function completeIdempotentRequest(
  deps: Pick<AuthDeps, 'idempotency'>,
  input: { apiKeyId: string; idempotencyKey: string; responseStatus: number; responseBody: Buffer; release: boolean },
): Promise<void> {
  const key = validIdempotencyKey(input);
  if (input.release) {
    await deps.idempotency.release(key);
    return;
  }
  if (!Number.isInteger(input.responseStatus) || input.responseStatus < 100 || input.responseStatus > 599) {
    throw new AppError('invalid_request', 'response_status must be an HTTP status', 'response_status');
  }
  const stored = await deps.idempotency.complete(key, input.responseStatus, Buffer.from(input.responseBody ?? Buffer.alloc(0)));
  if (!stored) throw notFound('idempotency record');
}
