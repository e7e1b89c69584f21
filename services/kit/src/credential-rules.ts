import { AppError } from './errors';

/**
 * SPEC section 12's numbers for replacing credentials, shared by the services that enforce them
 * and the gateway and panel that validate requests first.
 */

export interface IntegerRange {
  min: number;
  max: number;
}

/** How long a replaced webhook secret or rolled API key stays valid beside its successor (`previous_expires_in`). */
export const OVERLAP_SECONDS = { min: 0, max: 604_800, default: 86_400 } as const;

/** An API key's lifetime (`expires_in`): up to ten years. */
export const KEY_LIFETIME_SECONDS = { min: 1, max: 315_360_000 } as const;

/** A key's own read or write limit, requests per minute. */
export const KEY_LIMIT_PER_MINUTE = { min: 1, max: 1_000_000 } as const;

/** A whole number inside the range, or invalid_request naming `param`. */
export function integerIn(value: number, range: IntegerRange, param: string): number {
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new AppError('invalid_request', `${param} must be an integer from ${range.min} to ${range.max}`, param);
  }
  return value;
}
