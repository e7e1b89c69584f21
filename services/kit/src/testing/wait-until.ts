export interface WaitOptions {
  /** Give up after this long (20 s). */
  timeoutMs?: number;
  /** Pause between two checks (50 ms). */
  intervalMs?: number;
  /** What is awaited, for the error when it does not come. */
  what?: string;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `check` until it returns a truthy value and resolves with that value; rejects once
 * `timeoutMs` have passed. For waiting on what a test waits for instead of sleeping a fixed time.
 */
export async function waitUntil<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 20_000, intervalMs = 50, what = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Settles as `promise` does, or rejects once `timeoutMs` have passed without it settling. */
export function within<T>(promise: Promise<T>, timeoutMs: number, what = 'promise'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
