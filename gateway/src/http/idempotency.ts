import type { Request } from 'express';
import { AppError, sha256Hex, type CallOpts } from '@propdesk/kit';
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
 * effect, alone: the key, its scope and the request fingerprint travel to it in gRPC metadata
 * (kit idempotency.ts) and it records the key in the same transaction as the effect, with the
 * answer. A concurrent duplicate waits on the owner's unique index and replays what was
 * committed; a retry after the commit is answered from the owner's record with one read.
 *
 * The gateway keeps no record of its own: a second record (written before and after the owner's
 * transaction) would cost two more round trips and two more commits per write, and could never
 * decide anything the owner's record does not.
 */
export function runIdempotent(
  req: Request,
  principal: { keyId: string; organizationId: string },
  idempotencyKey: string,
  opts: CallOpts,
  execute: (opts: CallOpts) => Promise<Rendered>,
): Promise<Rendered> {
  const fingerprint = requestFingerprint(req);
  return execute({ ...opts, idempotency: { scope: `${principal.organizationId}/${principal.keyId}`, key: idempotencyKey, fingerprint } });
}
