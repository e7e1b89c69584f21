/**
 * When to try again. The schedule lists the wait before each retry (the first attempt is immediate),
 * so a schedule of n entries allows n + 1 attempts.
 */
export interface RetryDecision {
  retry: boolean;
  delayMs: number;
}

export const PRODUCTION_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** `attemptsMade` counts the attempt that just failed. */
export function nextRetry(options: {
  scheduleSeconds: readonly number[];
  attemptsMade: number;
  retryAfterSeconds?: number;
  /** A number in [0, 1); 0.5 = no jitter. Injected so tests are deterministic. */
  random?: number;
  jitter?: number;
}): RetryDecision {
  const { scheduleSeconds, attemptsMade } = options;
  if (attemptsMade > scheduleSeconds.length || attemptsMade < 1) return { retry: false, delayMs: 0 };
  const scheduled = scheduleSeconds[attemptsMade - 1] * 1000;
  const jitter = options.jitter ?? 0.1;
  const random = options.random ?? Math.random();
  const jittered = Math.round(scheduled * (1 + jitter * (2 * random - 1)));
  if (options.retryAfterSeconds === undefined) return { retry: true, delayMs: jittered };
  const largest = Math.max(...scheduleSeconds) * 1000;
  return { retry: true, delayMs: Math.min(Math.max(options.retryAfterSeconds * 1000, jittered), largest) };
}

/** Retry-After is either delta seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** An endpoint failing without a single success for this long is disabled. */
export function shouldDisable(firstFailureSince: Date | null, now: Date, disableAfterHours: number): boolean {
  if (!firstFailureSince) return false;
  return now.getTime() - firstFailureSince.getTime() >= disableAfterHours * 3_600_000;
}
