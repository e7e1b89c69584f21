import { readSettledEvents, type StoredEvent } from '../data/events';
import type { AccountsDeps } from '../deps';

export const STREAM_BATCH_SIZE = 500;
export const STREAM_POLL_MS = 500;

export interface EventSink {
  /** Resolves once the consumer can take more (flow control). `head`: the newest settled position. */
  send(event: StoredEvent, head: number): Promise<void>;
  /** True once the call is cancelled or the server stops. */
  readonly closed: boolean;
  /** Registers a callback run once when the sink closes. */
  onClose(callback: () => void): void;
}

/**
 * Sends every settled event after `after`, in position order, then keeps following the outbox:
 * woken by NOTIFY, with a poll as fallback (a row may settle without a new NOTIFY, when an older
 * transaction ends). Returns when the sink closes.
 */
export async function streamEvents(deps: AccountsDeps, after: number, sink: EventSink): Promise<void> {
  let last = after;
  let wakeUp: (() => void) | null = null;
  const unsubscribe = deps.eventsNotifier.subscribe(() => wakeUp?.());
  sink.onClose(() => wakeUp?.());
  try {
    while (!sink.closed) {
      const { events: batch, head } = await readSettledEvents(deps.sequelize, last, STREAM_BATCH_SIZE);
      for (const event of batch) {
        if (sink.closed) return;
        await sink.send(event, head);
        last = event.position;
      }
      if (batch.length === STREAM_BATCH_SIZE) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, STREAM_POLL_MS);
        function done() {
          clearTimeout(timer);
          wakeUp = null;
          resolve();
        }
        wakeUp = done;
        if (sink.closed) done();
      });
    }
  } finally {
    unsubscribe();
  }
}
