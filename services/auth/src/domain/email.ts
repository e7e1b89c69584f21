import { requireEmail } from '@propdesk/kit';

/** Emails are unique case-insensitively: every lookup and the unique index use this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A new user's email: refused rather than repaired (surrounding whitespace, control characters,
 * over 254 characters), then kept in its lookup form (lowercase): a panel login is case-insensitive.
 */
export function validEmail(email: string): string {
  return requireEmail(email, 'email').toLowerCase();
}
