import { listenToChannel, type ChannelListener, type Logger } from '@propdesk/kit';
import { EVENTS_CHANNEL } from './outbox';

/**
 * One dedicated connection LISTENing on the outbox channel, shared by every stream of this
 * process and opened with the first subscriber; listeners are woken on each NOTIFY and after
 * each (re)connect. Streams also poll, so a lost connection only delays delivery.
 */
export interface EventsNotifier {
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

// The schema parameter is kept for the composition root's call; LISTEN does not depend on it.
export function createEventsNotifier(databaseUrl: string, _schema: string, logger: Logger): EventsNotifier {
  const listeners = new Set<() => void>();
  let channel: ChannelListener | undefined;
  let closed = false;

  const wake = () => {
    for (const listener of listeners) listener();
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!channel && !closed) {
        channel = listenToChannel({
          databaseUrl,
          channel: EVENTS_CHANNEL,
          applicationName: 'propdesk-accounts-listen',
          logger,
          retry: { initialMs: 1000, maxMs: 1000 },
          onNotification: wake,
          onListening: wake,
        });
      }
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      await channel?.close();
    },
  };
}
