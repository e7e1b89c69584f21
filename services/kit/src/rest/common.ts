import { z } from 'zod';
import { AppError } from '../errors';

/** REST shows times as ISO 8601 UTC; an absent required time reads as the epoch. */
export const isoTime = (value: Date | undefined): string => (value ?? new Date(0)).toISOString();

export const isoTimeOrNull = (value: Date | undefined): string | null => (value === undefined ? null : value.toISOString());

export const textOrNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

/** SPEC 13: every tenant object says which partition it belongs to, Stripe's way. */
export const livemodeSchema = z.boolean().describe('true for a live object, false for a test-mode one (SPEC 13)');

/** A list page of SPEC section 7: exactly {data, next_cursor}. */
export function restPageSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable().describe('null on the last page') }).strict();
}

/** A message field every answer must carry; its absence is the service's bug, not the caller's. */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new AppError('internal_error', `the service answered without ${what}`);
  return value;
}
