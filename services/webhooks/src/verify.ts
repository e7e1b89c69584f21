import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Receiver-side verification of a PropDesk webhook: checks the timestamp is recent and the
 * signature matches the raw body, in constant time. Dependency-free so it can be copied into a
 * receiver as is.
 */
export type HeaderBag = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifiedEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  /** false for an event of test mode (SPEC 13). */
  livemode: boolean;
  data: Record<string, unknown>;
}

export type VerifyResult =
  | { ok: true; event: VerifiedEvent }
  | { ok: false; reason: 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature' | 'invalid_body' };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export function verifyWebhook(input: {
  rawBody: string | Buffer;
  headers: HeaderBag;
  secret: string;
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the clock. */
  now?: number;
}): VerifyResult {
  const timestampHeader = header(input.headers, 'x-service-timestamp');
  const signatureHeader = header(input.headers, 'x-service-signature');
  if (!timestampHeader || !signatureHeader) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestampHeader.trim())) return { ok: false, reason: 'invalid_timestamp' };
  const timestamp = Number(timestampHeader.trim());
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const body = Buffer.isBuffer(input.rawBody) ? input.rawBody : Buffer.from(input.rawBody, 'utf8');
  const expected = createHmac('sha256', input.secret).update(`${timestamp}.`).update(body).digest();
  // During a secret rotation two signatures are sent, comma-separated (`v1=<new>,v1=<previous>`);
  // spaces are accepted as separators too. One match is enough.
  const matches = signatureHeader
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const hex = part.slice(3);
      if (!/^[0-9a-f]{64}$/.test(hex)) return false;
      return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
    });
  if (!matches) return { ok: false, reason: 'invalid_signature' };

  try {
    const event = JSON.parse(body.toString('utf8')) as VerifiedEvent;
    if (typeof event !== 'object' || event === null || typeof event.id !== 'string') return { ok: false, reason: 'invalid_body' };
    return { ok: true, event };
  } catch {
    return { ok: false, reason: 'invalid_body' };
  }
}
