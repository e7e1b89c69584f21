import type { Request } from 'express';
import { authv1 } from '@propdesk/proto';
import { AppError, sha256Hex, type CallOpts, type Logger } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import type { Rendered } from './errors';

const rawBodies = new WeakMap<Request, Buffer>();

/** express.json's verify hook keeps the exact bytes: the fingerprint covers what was sent. */
export function keepRawBody(req: Request, buf: Buffer): void {
  rawBodies.set(req, buf);
}

/** The exact bytes of a parsed JSON body (undefined when none was read). */
export function rawBodyOf(req: Request): Buffer | undefined {
  return rawBodies.get(req);
}

export function idempotencyKeyOf(req: Request): string | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.length < 1 || value.length > 255) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
  }
  return value;
}

/** JSON with object keys sorted at every level: the same body however its keys were ordered or spaced. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What a key is bound to: method, path and a hash of the canonical body (a retry that re-serialises
 * the same body in another key order is the same request).
 */
export function requestFingerprint(req: Request): string {
  const raw = rawBodies.get(req);
  const body = raw === undefined || raw.length === 0 ? '' : canonicalJson(req.body);
  return sha256Hex(`${req.method} ${req.originalUrl}\n${sha256Hex(body)}`);
}

/**
 * Runs a write with an Idempotency-Key. Exactly-once is decided by the service that owns the
 * effect: the key, its scope and the request fingerprint travel to it in gRPC metadata (kit
 * idempotency.ts) and it records the key in the same transaction as the effect, with the answer.
 *
 * The auth service's record is only a fast path: a completed one answers without calling the
 * owner. It never decides that a write may run again: when it is in progress (another gateway is
 * on it, or died on it), unavailable, or released after a 5xx, the request goes to the owner,
 * which waits for a concurrent duplicate on its unique index and replays what was committed.
 */
export async function runIdempotent(
  auth: ServiceClient<authv1.AuthServiceClient>,
  logger: Logger,
  req: Request,
  principal: { keyId: string; organizationId: string },
  idempotencyKey: string,
  opts: CallOpts,
  execute: (opts: CallOpts) => Promise<Rendered>,
): Promise<Rendered> {
  const apiKeyId = principal.keyId;
  const fingerprint = requestFingerprint(req);
  const owned: CallOpts = { ...opts, idempotency: { scope: `${principal.organizationId}/${apiKeyId}`, key: idempotencyKey, fingerprint } };
  let begun: authv1.BeginIdempotentRequestResponse;
  try {
    begun = await auth.call.beginIdempotentRequest({ apiKeyId, idempotencyKey, requestFingerprint: fingerprint }, opts);
  } catch (err) {
    // idempotency_key_reused and bad keys are answers; an unreachable fast path is not.
    if (err instanceof AppError && err.code !== 'unavailable' && err.code !== 'internal_error') throw err;
    logger.warn({ err }, 'idempotency fast path unavailable; the owning service decides');
    return execute(owned);
  }
  if (begun.state === authv1.IdempotencyState.IDEMPOTENCY_STATE_COMPLETED) {
    return { status: begun.responseStatus, body: Buffer.from(begun.responseBody) };
  }
  if (begun.state !== authv1.IdempotencyState.IDEMPOTENCY_STATE_ACQUIRED) return execute(owned);
  const rendered = await execute(owned);
  try {
    await auth.call.completeIdempotentRequest(
      {
        apiKeyId,
        idempotencyKey,
        responseStatus: rendered.status,
        responseBody: Buffer.isBuffer(rendered.body) ? rendered.body : Buffer.from(rendered.body),
        // Safe: a retry reaches the owner, which replays a committed effect from its own record.
        release: rendered.status >= 500,
      },
      opts,
    );
  } catch (err) {
    // The owner holds the record; the fast path only misses this answer.
    logger.warn({ err }, 'could not store an idempotent answer in the fast path');
  }
  return rendered;
}
