import type { Logger } from '@propdesk/kit';
import type { ApiKeysRepository } from './api-keys';

const MIN_INTERVAL_MS = 60_000;

/**
 * Writes last_used_at at most once a minute per key and never on the verify path: the update
 * is fired and forgotten (errors logged), and stop() waits for the ones in flight.
 */
export function createKeyUsageRecorder(apiKeys: ApiKeysRepository, logger: Logger) {
  const lastWrite = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  return {
    record(keyId: string, lastUsedAt: Date | null): void {
      const now = Date.now();
      const known = Math.max(lastWrite.get(keyId) ?? 0, lastUsedAt?.getTime() ?? 0);
      if (now - known < MIN_INTERVAL_MS) return;
      lastWrite.set(keyId, now);
      // bounded memory: entries older than the interval are useless
      if (lastWrite.size > 100_000) {
        for (const [id, at] of lastWrite) if (now - at >= MIN_INTERVAL_MS) lastWrite.delete(id);
      }
      const write = apiKeys
        .touch(keyId)
        .catch((err: unknown) => logger.warn({ err, keyId }, 'could not record API key use'))
        .finally(() => inFlight.delete(write));
      inFlight.add(write);
    },
    async drain(): Promise<void> {
      await Promise.all([...inFlight]);
    },
  };
}

export type KeyUsageRecorder = ReturnType<typeof createKeyUsageRecorder>;
