import { AppError } from '@propdesk/kit';

/** Emails are unique case-insensitively: every lookup and the unique index use this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (normalized.length === 0 || normalized.length > 254 || !EMAIL_SHAPE.test(normalized)) {
    throw new AppError('invalid_request', 'email must be a valid email address', 'email');
  }
  return normalized;
}
