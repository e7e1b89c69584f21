import { createHmac } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';

/** `v1=` + lowercase hex HMAC-SHA256(secret, `${timestamp}.${body}`); the whole secret string is the key. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `${SIGNATURE_VERSION}=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
