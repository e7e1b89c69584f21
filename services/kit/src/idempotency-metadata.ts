import type { Metadata } from '@grpc/grpc-js';
import { AppError } from './errors';

/**
 * How an Idempotency-Key travels from the gateway to the service that owns the write: the key,
 * its scope and the request's fingerprint, in gRPC metadata (idempotency.ts decides with them).
 */

/** gRPC metadata names the gateway sets on a write that carries an Idempotency-Key. */
export const IDEMPOTENCY_KEY_METADATA = 'idempotency-key-bin';
export const IDEMPOTENCY_SCOPE_METADATA = 'idempotency-scope';
export const IDEMPOTENCY_FINGERPRINT_METADATA = 'idempotency-fingerprint';

export interface IdempotentRequest {
  /** Who the key belongs to: `<organization id>/<API key id>`. */
  scope: string;
  /** The client's Idempotency-Key, 1 to 255 characters. */
  key: string;
  /** sha256 hex of method, path and canonical body. */
  fingerprint: string;
}

/** Sets the idempotency metadata of an outgoing call (the gateway's side). */
export function setIdempotencyMetadata(metadata: Metadata, request: IdempotentRequest): void {
  metadata.set(IDEMPOTENCY_KEY_METADATA, Buffer.from(request.key, 'utf8'));
  metadata.set(IDEMPOTENCY_SCOPE_METADATA, request.scope);
  metadata.set(IDEMPOTENCY_FINGERPRINT_METADATA, request.fingerprint);
}

/** The idempotency of an incoming call, or undefined when it carries no key. Malformed -> invalid_request. */
export function idempotentRequestOf(metadata: Metadata): IdempotentRequest | undefined {
  const [rawKey] = metadata.get(IDEMPOTENCY_KEY_METADATA);
  if (rawKey === undefined) return undefined;
  const key = Buffer.isBuffer(rawKey) ? rawKey.toString('utf8') : String(rawKey);
  const scope = String(metadata.get(IDEMPOTENCY_SCOPE_METADATA)[0] ?? '');
  const fingerprint = String(metadata.get(IDEMPOTENCY_FINGERPRINT_METADATA)[0] ?? '');
  if (key.length < 1 || key.length > 255 || key.includes('\0')) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
  }
  if (scope.length < 1 || scope.length > 200 || fingerprint.length < 1 || fingerprint.length > 128) {
    throw new AppError('invalid_request', 'an Idempotency-Key needs its scope and request fingerprint', 'Idempotency-Key');
  }
  return { scope, key, fingerprint };
}
