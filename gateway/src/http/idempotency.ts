import type { Request } from 'express';
import { authv1 } from '@propdesk/proto';
import { AppError, sha256Hex, type CallOpts, type Logger } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import type { Rendered } from './errors';

const POLL_INTERVAL_MS = 100;
const WAIT_FOR_FIRST_MS = 10_000;

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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a write once per (API key, Idempotency-Key): the first request executes and its exact
 * answer is stored; retries get those bytes back; a concurrent duplicate waits for the first.
 */
export async function runIdempotent(
  auth: ServiceClient<authv1.AuthServiceClient>,
  logger: Logger,
  req: Request,
  apiKeyId: string,
  idempotencyKey: string,
  opts: CallOpts,
  execute: () => Promise<Rendered>,
): Promise<Rendered> {
  const raw = rawBodies.get(req) ?? Buffer.alloc(0);
  const requestFingerprint = sha256Hex(Buffer.concat([Buffer.from(`${req.method} ${req.originalUrl}\n`), raw]));
  const giveUpAt = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const begun = await auth.call.beginIdempotentRequest({ apiKeyId, idempotencyKey, requestFingerprint }, opts);
    switch (begun.state) {
      case authv1.IdempotencyState.IDEMPOTENCY_STATE_COMPLETED:
        return { status: begun.responseStatus, body: Buffer.from(begun.responseBody) };
      case authv1.IdempotencyState.IDEMPOTENCY_STATE_ACQUIRED: {
        const rendered = await execute();
        try {
          await auth.call.completeIdempotentRequest(
            {
              apiKeyId,
              idempotencyKey,
              responseStatus: rendered.status,
              responseBody: Buffer.isBuffer(rendered.body) ? rendered.body : Buffer.from(rendered.body),
              release: rendered.status >= 500,
            },
            opts,
          );
        } catch (err) {
          // The write happened; the client still gets its answer. A retry may re-execute, which is
          // the same risk as having no key at all.
          logger.warn({ err }, 'could not store an idempotent answer');
        }
        return rendered;
      }
      case authv1.IdempotencyState.IDEMPOTENCY_STATE_IN_PROGRESS:
        if (Date.now() >= giveUpAt) throw new AppError('conflict', 'a request with this Idempotency-Key is still being processed');
        await sleep(POLL_INTERVAL_MS);
        break;
      default:
        throw new AppError('internal_error', 'internal error');
    }
  }
}
