import type { Logger, ServiceClient } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import type { OutboxEvent, OutboxRepository } from '../data/outbox-repository';

export interface OutboxForwarderOptions {
  outbox: OutboxRepository;
  accounts: ServiceClient<accountsv1.AccountsServiceClient>;
  logger: Logger;
  /** How often it looks for events without being woken (another replica's, or after a crash). */
  pollIntervalMs: number;
}

export interface OutboxForwarder {
  /** An event was just recorded: forward it now. */
  wake(): void;
  stop(): Promise<void>;
}

const BATCH = 100;

function toProto(event: OutboxEvent): accountsv1.Event {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    organizationId: event.organizationId,
    livemode: event.livemode,
    data: event.data,
    traceparent: '',
    tracestate: '',
  };
}

/**
 * Hands the service's own events (data/outbox-repository.ts) to the accounts service's outbox,
 * oldest first, and marks them forwarded once it answered. At least once: after a failure or a
 * crash the same events are sent again, and AppendEvents skips the ids it already holds. Every
 * replica runs one; two sending the same event at once is harmless for the same reason.
 */
export function startOutboxForwarder(options: OutboxForwarderOptions): OutboxForwarder {
  const { outbox, accounts, logger } = options;
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let pending = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const forwardAll = async (): Promise<void> => {
    for (;;) {
      const batch = await outbox.unforwarded(BATCH);
      if (batch.length === 0) return;
      const { appended } = await accounts.call.appendEvents({ events: batch.map(toProto) });
      await outbox.markForwarded(batch.map((e) => e.id));
      logger.info({ forwarded: batch.length, appended }, 'events forwarded to the accounts outbox');
      if (batch.length < BATCH || stopped) return;
    }
  };

  const run = async () => {
    let backoffMs = 200;
    while (!stopped) {
      pending = false;
      try {
        await forwardAll();
        backoffMs = 200;
        if (!pending && !stopped) await sleep(options.pollIntervalMs);
      } catch (err) {
        if (stopped) break;
        logger.warn({ err: (err as Error).message, retryInMs: backoffMs }, 'cannot forward events; retrying');
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 5000);
      }
    }
  };
  const running = run();

  return {
    wake() {
      pending = true;
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await running;
    },
  };
}
