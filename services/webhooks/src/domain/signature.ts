import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';
export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret, the form Standard Webhooks libraries expect: whsec_ + base64 of 32 random bytes. */
export function newEndpointSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** SPEC section 8: `v1=` + lowercase hex HMAC-SHA256(secret, `${timestamp}.${body}`); the whole secret string is the key. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `${SIGNATURE_VERSION}=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The Standard Webhooks key: the base64-decoded part of the secret after whsec_, or undefined when
 * that part is not strict base64 (no library could derive the same key from it). Secrets made
 * before standard headers existed (whsec_ + 32 letters and digits) are strict base64 too: they
 * decode to a 24-byte key, the smallest the Standard Webhooks specification allows.
 */
export function standardSigningKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  return encoded.length > 0 && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256(key, `${id}.${timestamp}.${body}`). */
export function signStandard(key: Buffer, eventId: string, timestamp: number, body: string): string {
  return `${SIGNATURE_VERSION},${createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Every signature header of one attempt. `secrets` are the secrets valid now, newest first: each
 * signs, so a receiver holding either secret of a rotation verifies. Section 8's header lists its
 * signatures comma-separated (`v1=<new>,v1=<previous>`, the form Stripe's verifier reads after
 * `t=<timestamp>,`); Standard Webhooks lists them space-separated. A secret no library can decode
 * gets no standard signature; webhook-id and webhook-timestamp are sent regardless.
 */
export function signatureHeaders(input: { eventId: string; timestamp: number; body: string; secrets: readonly string[] }): Record<string, string> {
  const { eventId, timestamp, body, secrets } = input;
  const headers: Record<string, string> = {
    'x-service-id': eventId,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': secrets.map((secret) => signPayload(secret, timestamp, body)).join(','),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
  };
  const standard: string[] = [];
  for (const secret of secrets) {
    const key = standardSigningKey(secret);
    if (key !== undefined) standard.push(signStandard(key, eventId, timestamp, body));
  }
  if (standard.length > 0) headers['webhook-signature'] = standard.join(' ');
  return headers;
}
