/**
 * What the gateway needs to answer one request: whether it may pass and the numbers behind the
 * RateLimit-* and Retry-After headers (SPEC section 5).
 */
export interface LimitDecision {
  allowed: boolean;
  /** RateLimit-Limit: the bucket's size per window. */
  limit: number;
  /** RateLimit-Remaining. */
  remaining: number;
  /** RateLimit-Reset: whole seconds until the window resets (at least 1 while any time is left). */
  resetSeconds: number;
  /** Retry-After for a refused request: whole seconds, at least 1, pointing at the moment the window frees. */
  retryAfterSeconds: number;
}

/** The part of a rate-limiter-flexible RateLimiterRes the decision depends on. */
export interface LimiterOutcome {
  remainingPoints: number;
  msBeforeNext: number;
}

/**
 * Rounds up so a client that waits Retry-After seconds never arrives a few ms before the window
 * frees (and gets a second 429).
 */
export function secondsUntil(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.ceil(ms / 1000);
}

export function toDecision(allowed: boolean, limit: number, outcome: LimiterOutcome): LimitDecision {
  const resetSeconds = secondsUntil(outcome.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, Math.min(limit, outcome.remainingPoints)) : 0,
    resetSeconds,
    retryAfterSeconds: Math.max(1, resetSeconds),
  };
}
