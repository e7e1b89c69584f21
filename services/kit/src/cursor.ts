import { createHmac, createSecretKey } from 'node:crypto';
import { AppError } from './errors';
import { safeEqual } from './crypto';

/**
 * Opaque, authenticated page tokens. A token binds the list it belongs to (scope: e.g.
 * "accounts:<org>:<filters>") and a keyset position; a tampered token, or one presented to
 * another list or organization, is invalid_cursor.
 */
export interface CursorCodec {
  encode(scope: string, position: unknown): string;
  decode<T>(scope: string, token: string): T;
}

export function createCursorCodec(secret: string): CursorCodec {
  // Imported once: a string key would be imported again by every createHmac.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const sign = (scope: string, payload: string): string =>
    createHmac('sha256', key).update(`${scope}\u0000${payload}`).digest('base64url').slice(0, 22);
  return {
    encode(scope, position) {
      const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
      return `${payload}.${sign(scope, payload)}`;
    },
    decode<T>(scope: string, token: string): T {
      const invalid = new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
      if (typeof token !== 'string' || token.length > 1024) throw invalid;
      const dot = token.lastIndexOf('.');
      if (dot <= 0) throw invalid;
      const payload = token.slice(0, dot);
      if (!safeEqual(token.slice(dot + 1), sign(scope, payload))) throw invalid;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
      } catch {
        throw invalid;
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
