import type { Logger } from '@propdesk/kit';

/**
 * In-memory stand-in with the interface of gateway/src/limits (written in parallel); used only
 * until that module lands. Fixed 60 s windows opened by the first request.
 */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
}

export interface Limits {
  beforeLookup(ip: string, cachedValidKey: boolean): Promise<{ action: 'lookup' | 'refuse'; decision?: LimitDecision }>;
  onInvalid(ip: string): Promise<LimitDecision>;
  onValid(keyId: string, write: boolean): Promise<LimitDecision>;
  close(): Promise<void>;
}

export interface FallbackLimitsConfig {
  readPerMin: number;
  writePerMin: number;
  ipPerMin: number;
}

const WINDOW_MS = 60_000;

export function createFallbackLimits(options: { config: FallbackLimitsConfig; logger: Logger }): Limits {
  const windows = new Map<string, { count: number; resetsAt: number }>();
  const consume = (bucket: string, limit: number, points: number): LimitDecision => {
    const now = Date.now();
    let window = windows.get(bucket);
    if (window === undefined || window.resetsAt <= now) {
      window = { count: 0, resetsAt: now + WINDOW_MS };
      windows.set(bucket, window);
    }
    window.count += points;
    const resetSeconds = Math.max(1, Math.ceil((window.resetsAt - now) / 1000));
    return {
      allowed: window.count <= limit,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetSeconds,
      retryAfterSeconds: resetSeconds,
    };
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [bucket, window] of windows) if (window.resetsAt <= now) windows.delete(bucket);
  }, WINDOW_MS);
  sweep.unref();
  options.logger.warn('rate limits kept in process memory (fallback module)');
  return {
    async beforeLookup(ip, cachedValidKey) {
      if (cachedValidKey) return { action: 'lookup' };
      const decision = consume(`ip:${ip}`, options.config.ipPerMin, 0);
      return decision.remaining > 0 ? { action: 'lookup' } : { action: 'refuse', decision: { ...decision, allowed: false } };
    },
    async onInvalid(ip) {
      return consume(`ip:${ip}`, options.config.ipPerMin, 1);
    },
    async onValid(keyId, write) {
      return write ? consume(`w:${keyId}`, options.config.writePerMin, 1) : consume(`r:${keyId}`, options.config.readPerMin, 1);
    },
    async close() {
      clearInterval(sweep);
      windows.clear();
    },
  };
}
