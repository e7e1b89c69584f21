import { Client } from 'pg';
import type { Logger } from './logger';

export interface ChannelListenerOptions {
  databaseUrl: string;
  /** A plain identifier (LISTEN takes no parameters). */
  channel: string;
  /** How the connection shows in pg_stat_activity. */
  applicationName: string;
  logger: Logger;
  onNotification(payload: string): void;
  /** After each successful LISTEN, first and reconnected: pick up what was committed while nobody listened. */
  onListening?(): void;
  /** An established connection broke: notifications may have been missed until the next onListening. */
  onLost?(): void;
  /** Reconnect backoff, doubling from `initialMs` up to `maxMs`. */
  retry?: { initialMs: number; maxMs: number };
}

export interface ChannelListener {
  /** Resolves once LISTEN is first in place (retrying meanwhile); rejects only when closed before. */
  readonly listening: Promise<void>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * PostgreSQL LISTEN on one dedicated connection that reconnects with backoff whenever it breaks
 * or cannot be opened. Notifications are only a wake-up: readers also poll (or treat onLost as a
 * reason to resynchronise), because a NOTIFY sent while the connection was down is gone.
 */
export function listenToChannel(options: ChannelListenerOptions): ChannelListener {
  if (!IDENTIFIER.test(options.channel)) throw new Error(`bad channel name ${options.channel}`);
  const { logger } = options;
  const retry = options.retry ?? { initialMs: 200, maxMs: 5000 };
  let client: Client | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delayMs = retry.initialMs;
  let settle: { resolve(): void; reject(err: Error): void } | undefined;
  const listening = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Callers that do not wait for it must not see an unhandled rejection when closing early.
  listening.catch(() => undefined);

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delayMs);
    retryTimer.unref();
    delayMs = Math.min(delayMs * 2, retry.maxMs);
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new Client({ connectionString: options.databaseUrl, application_name: options.applicationName });
    client = c;
    let established = false;
    // 'error' and 'end' both follow a broken connection: the first one handles it.
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      c.end().catch(() => undefined);
      if (closed) return;
      if (established) {
        logger.warn({ channel: options.channel, err: err?.message }, 'LISTEN connection lost; reconnecting');
        options.onLost?.();
      }
      scheduleReconnect();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (message) => {
      if (client === c && message.channel === options.channel) options.onNotification(message.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
    } catch (err) {
      if (client === c && !closed) logger.warn({ channel: options.channel, err: (err as Error).message }, 'cannot LISTEN; retrying');
      lost(err as Error);
      return;
    }
    if (client !== c) return;
    established = true;
    delayMs = retry.initialMs;
    settle?.resolve();
    options.onListening?.();
  };

  void connect();

  return {
    listening,
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      settle?.reject(new Error(`stopped before LISTEN ${options.channel} was in place`));
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
