import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types';

/**
 * Verifying a PropDesk delivery, with node:crypto only. A delivery is signed two ways, and either
 * one verifying is enough:
 *  - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`, an
 *    HMAC-SHA256 keyed with the base64-decoded part of the `whsec_` secret over
 *    `id.timestamp.body` (what the `standardwebhooks` and `svix` libraries check);
 *  - PropDesk's own: `X-Service-Timestamp`, `X-Service-Signature: v1=<hex>`, an HMAC-SHA256 keyed
 *    with the whole secret string over `timestamp.body`.
 * While a rotated secret overlaps its successor a header carries two signatures (space-separated
 * for the standard one, comma-separated for PropDesk's); one match is enough. The timestamp must be
 * within the tolerance (300 s) of now, either way, so a captured delivery cannot be replayed later.
 */

/** Node's IncomingHttpHeaders, a plain object, or fetch's Headers. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyOptions {
  /** Seconds a timestamp may be away from now [300]. */
  toleranceSeconds?: number;
  /** Now, in unix seconds [the clock]. */
  now?: number;
}

export type VerificationFailure = 'missing_headers' | 'timestamp_out_of_tolerance' | 'invalid_signature' | 'invalid_body';

/** A delivery that did not verify: answer it 400 and do nothing with it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(readonly reason: VerificationFailure) {
    super(`the webhook delivery did not verify: ${reason.replace(/_/g, ' ')}`);
  }
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The timestamp if it is whole seconds within the tolerance of now; null if not. */
function freshTimestamp(value: string, options: VerifyOptions): number | null {
  if (!/^\d{1,12}$/.test(value.trim())) return null;
  const timestamp = Number(value.trim());
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return Math.abs(now - timestamp) <= (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) ? timestamp : null;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Standard Webhooks key of a secret: the base64 after whsec_ (undefined for another form). */
function standardKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  return encoded.length > 0 && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
}

type SchemeOutcome = 'verified' | VerificationFailure;

function verifyStandard(body: Buffer, headers: WebhookHeaders, secrets: readonly string[], options: VerifyOptions): SchemeOutcome {
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatures) return 'missing_headers';
  const timestamp = freshTimestamp(timestampHeader, options);
  if (timestamp === null) return 'timestamp_out_of_tolerance';
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  for (const secret of secrets) {
    const key = standardKey(secret);
    if (key === undefined) continue;
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
    if (offered.some((signature) => sameBytes(signature, expected))) return 'verified';
  }
  return 'invalid_signature';
}

function verifyService(body: Buffer, headers: WebhookHeaders, secrets: readonly string[], options: VerifyOptions): SchemeOutcome {
  const timestampHeader = header(headers, 'x-service-timestamp');
  const signatures = header(headers, 'x-service-signature');
  if (!timestampHeader || !signatures) return 'missing_headers';
  const timestamp = freshTimestamp(timestampHeader, options);
  if (timestamp === null) return 'timestamp_out_of_tolerance';
  const offered = signatures
    .split(/[\s,]+/)
    .filter((entry) => /^v1=[0-9a-f]{64}$/.test(entry))
    .map((entry) => Buffer.from(entry.slice(3), 'hex'));
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    if (offered.some((signature) => sameBytes(signature, expected))) return 'verified';
  }
  return 'invalid_signature';
}

/**
 * Checks a delivery's raw body (the bytes as received, before any JSON parsing) against its
 * headers and the endpoint's secret (or several, while you roll yours), and returns the event.
 * Throws WebhookVerificationError when neither signature verifies: a changed body, another
 * secret, a stale or future timestamp, or no signature headers.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], options: VerifyOptions = {}): WebhookEvent {
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook: the endpoint secret is required');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const outcomes = [verifyStandard(body, headers, secrets, options), verifyService(body, headers, secrets, options)];
  if (!outcomes.includes('verified')) {
    const reason = (['invalid_signature', 'timestamp_out_of_tolerance', 'missing_headers'] as const).find((r) => outcomes.includes(r)) ?? 'missing_headers';
    throw new WebhookVerificationError(reason);
  }
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string' || typeof (event as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('invalid_body');
  }
  return event as WebhookEvent;
}

/** `pd.webhooks` (and `import { webhooks }`): verify(rawBody, headers, secret, options?). */
export const webhooks = { verify: verifyWebhook } as const;
