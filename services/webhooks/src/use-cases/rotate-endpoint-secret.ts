import { effectTransaction, integerIn, notFound, OVERLAP_SECONDS, recordAudit, type ScopeFields } from '@propdesk/kit';
import type { Deps } from '../deps';
import type { EndpointRecord } from '../data/endpoints-repository';
import { newEndpointSecret } from '../domain/signature';
import { requireScope } from './require-scope';
import { endpointAudit } from './endpoint-audit';

/**
 * SPEC section 12: a new secret, returned here only and stored sealed. Until the previous secret
 * expires every attempt (retries of older deliveries included) is signed with both, so receivers
 * can switch to the new secret without missing a delivery; 0 ends the previous one at once.
 */
export async function rotateEndpointSecret(
  deps: Deps,
  input: ScopeFields & { endpointId: string; previousExpiresInSeconds?: number },
): Promise<{ endpoint: EndpointRecord; secret: string; previousExpiresAt: Date | null }> {
  const scope = requireScope(input);
  const previousExpiresInSeconds = integerIn(input.previousExpiresInSeconds ?? OVERLAP_SECONDS.default, OVERLAP_SECONDS, 'previous_expires_in');
  const secret = newEndpointSecret();
  // A retry with the same Idempotency-Key gets this secret back, not a third one.
  const rotated = await effectTransaction(deps.db, async (transaction) => {
    const done = await deps.endpoints.rotateSecret({ scope, id: input.endpointId, secretSealed: deps.secrets.seal(secret), previousExpiresInSeconds }, transaction);
    if (!done) throw notFound('webhook endpoint');
    // The secrets themselves never reach the entry: only until when the previous one still signs.
    await recordAudit(transaction, endpointAudit(done.endpoint, 'webhook.rotate_secret', { previous_secret_expires_at: [null, done.previousExpiresAt] }));
    return { endpoint: done.endpoint, secret, previousExpiresAt: done.previousExpiresAt };
  });
  deps.logger.info({ endpointId: rotated.endpoint.id, organizationId: scope.organizationId, previousExpiresAt: rotated.previousExpiresAt }, 'webhook secret rotated');
  return rotated;
}
