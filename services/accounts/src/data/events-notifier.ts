import { Client } from 'pg';
import type { Logger } from '@propdesk/kit';
import { EVENTS_CHANNEL } from './outbox';

/**
 * One dedicated connection LISTENing on the outbox channel, shared by every stream of this
 * process; listeners are woken on each NOTIFY. Streams also poll, so a lost connection only
 * delays delivery (it reconnects with backoff).
 */
export interface EventsNotifier {
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

export function createEventsNotifier(databaseUrl: string, schema: string, logger: Logger): EventsNotifier {
  const listeners = new Set<() => void>();
  let client: Client | null = null;
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const wake = () => {
    for (const listener of listeners) listener();
  };

  const connect = async (): Promise<void> => {
    if (closed || client) return;
    const next = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema},public`, application_name: 'propdesk-accounts-listen' });
    client = next;
    next.on('notification', wake);
    next.on('error', (err) => {
      logger.warn({ err: err.message }, 'events listener connection failed; reconnecting');
      client = null;
      next.end().catch(() => undefined);
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (closed) await next.end();
      wake();
    } catch (err) {
      if (client === next) client = null;
      await next.end().catch(() => undefined);
      if (!closed) {
        logger.warn({ err: (err as Error).message }, 'events listener could not connect; retrying');
        scheduleReconnect();
      }
    }
  };

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, 1000);
    retryTimer.unref();
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!client && !retryTimer) void connect();
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      listeners.clear();
      const current = client;
      client = null;
      if (current) await current.end().catch(() => undefined);
    },
  };
}
