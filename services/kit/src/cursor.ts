import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from './errors';

/**
 * Opaque page tokens (SPEC 7: a client can neither build nor decode one). A token is the keyset
 * position sealed with AES-256-GCM under a key derived (HKDF-SHA256) from CURSOR_SECRET, with the
 * list's scope ("accounts:<org>:<filters>") as associated data: it decodes to nothing readable,
 * a changed character fails authentication, and a token presented to another organization, list
 * or filter fails it too. Positions are padded to a fixed size before sealing, so a token's length
 * says nothing of the position either (the event feed's position counts every organization's
 * events).
 *
 * Token: base64url(version 1 | nonce 12 | ciphertext | tag 16), canonical base64url only (a
 * second spelling of the same bytes is refused, so no character of a token can be changed).
 */
export interface CursorCodec {
  encode(scope: string, position: unknown): string;
  decode<T>(scope: string, token: string): T;
}

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Plaintexts are padded to a multiple of this (every position we keep fits in one or two blocks). */
const PAD_TO = 64;
export const MAX_CURSOR_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function createCursorCodec(secret: string): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from('propdesk cursor salt'), Buffer.from('propdesk/cursor/v1'), 32));
  const invalid = () => new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
  return {
    encode(scope, position) {
      const json = Buffer.from(JSON.stringify(position), 'utf8');
      // JSON ignores trailing whitespace: spaces pad it without any framing.
      const padded = Buffer.alloc(Math.ceil((json.length + 1) / PAD_TO) * PAD_TO, 0x20);
      json.copy(padded);
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(scope, 'utf8'));
      const sealed = Buffer.concat([cipher.update(padded), cipher.final()]);
      return Buffer.concat([Buffer.of(VERSION), nonce, sealed, cipher.getAuthTag()]).toString('base64url');
    },
    decode<T>(scope: string, token: string): T {
      if (typeof token !== 'string' || token.length > MAX_CURSOR_LENGTH || !BASE64URL.test(token)) throw invalid();
      const raw = Buffer.from(token, 'base64url');
      if (raw.toString('base64url') !== token) throw invalid();
      if (raw.length < 1 + NONCE_BYTES + PAD_TO + TAG_BYTES || raw[0] !== VERSION) throw invalid();
      const nonce = raw.subarray(1, 1 + NONCE_BYTES);
      const sealed = raw.subarray(1 + NONCE_BYTES, raw.length - TAG_BYTES);
      const tag = raw.subarray(raw.length - TAG_BYTES);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, nonce);
        decipher.setAAD(Buffer.from(scope, 'utf8'));
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(sealed), decipher.final()]);
        return JSON.parse(plain.toString('utf8')) as T;
      } catch {
        throw invalid();
      }
    },
  };
}

/** page_size: 0 = default 50, larger than 200 clamped, negative refused. */
export function pageSize(requested: number | undefined, defaultSize = 50, max = 200): number {
  if (requested === undefined || requested === 0) return defaultSize;
  if (!Number.isInteger(requested) || requested < 0) throw new AppError('invalid_request', 'limit must be a positive integer', 'limit');
  return Math.min(requested, max);
}
