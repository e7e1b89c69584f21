export interface WaitOptions {
  /** Give up after this long (10 s). */
  timeoutMs?: number;
  /** Pause between two checks (50 ms). */
  intervalMs?: number;
  /** What is awaited, for the error when it does not come. */
  what?: string;
}

/**
 * Polls `condition` until it holds and resolves with the milliseconds that took; rejects once
 * `timeoutMs` have passed. For waiting on what a test waits for instead of sleeping a fixed time.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<number> {
  const { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = options;
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
