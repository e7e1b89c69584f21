import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '@propdesk/kit';

export const MIN_PASSWORD_LENGTH = 8;
// Longer inputs only cost CPU (a cheap denial of service through scrypt) and protect nothing more.
export const MAX_PASSWORD_LENGTH = 1024;

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export function validatePassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('invalid_request', `password must be at least ${MIN_PASSWORD_LENGTH} characters`, 'password');
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('invalid_request', `password must be at most ${MAX_PASSWORD_LENGTH} characters`, 'password');
  }
}

/** Stored as scrypt$N$r$p$salt$hash (base64), so the parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS, KEY_LENGTH);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const key = await derive(password.slice(0, MAX_PASSWORD_LENGTH), Buffer.from(saltB64, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
