import type { Logger } from '@propdesk/kit';
import pLimit from 'p-limit';

/** Database round trips one batch of the engine's work (fills, exits, verdicts, warnings) runs at once. */
export const LANES = 4;

/** Runs `worker` for every item, in order, at most LANES at a time; resolves when all are done. */
export async function inLanes<T>(items: readonly T[], worker: (item: T) => Promise<void>): Promise<void> {
  if (items.length === 0) return;
  const limit = pLimit(LANES);
  await Promise.all(items.map((item) => limit(worker, item)));
}

/** Runs one of the engine's actions: a failure is logged and answered with null, so one account never stops the others. */
export async function guarded<T>(logger: Logger, action: () => Promise<T>): Promise<T | null> {
  try {
    return await action();
  } catch (err) {
    logger.error({ err }, 'trading action failed');
    return null;
  }
}
