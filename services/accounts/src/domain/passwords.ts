import { randomInt } from 'node:crypto';
import { randomString } from '@propdesk/kit';

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
// Look-alike characters (0/O, 1/l/I) left out: traders type these passwords into a terminal.
const ALL = UPPER + LOWER + DIGITS;

export const EXECUTOR_PASSWORD_LENGTH = 16;

/** A random executor password with at least one upper, one lower and one digit (CSPRNG). */
export function generateExecutorPassword(length = EXECUTOR_PASSWORD_LENGTH): string {
  const chars = [randomString(1, UPPER), randomString(1, LOWER), randomString(1, DIGITS), ...randomString(length - 3, ALL)];
  // Fisher-Yates so the guaranteed classes do not sit at fixed positions.
  for (let i = chars.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

export function isStrongPassword(value: string): boolean {
  return value.length >= EXECUTOR_PASSWORD_LENGTH && /[A-Z]/.test(value) && /[a-z]/.test(value) && /[0-9]/.test(value);
}
