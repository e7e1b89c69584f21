import { Client } from 'pg';
import type { Logger } from '@propdesk/kit';

/**
 * LISTEN on one dedicated connection; reconnects with backoff when the connection breaks. The
 * dispatcher also polls, so a missed notification only costs one poll interval.
 */
export function startNotifyListener(options: { databaseUrl: string; channel: string; onNotify: () => void; logger: Logger }): { stop(): Promise<void> } {
  let stopped = false;
  let client: Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let backoffMs = 200;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new Client({ connectionString: options.databaseUrl, application_name: 'propdesk-webhooks-listen' });
    client = c;
    const reconnect = () => {
      if (client !== c || stopped) return;
      client = undefined;
      c.end().catch(() => undefined);
      retryTimer = setTimeout(() => void connect(), backoffMs);
      backoffMs = Math.min(backoffMs * 2, 5000);
    };
    c.on('error', (err) => {
      options.logger.warn({ err: err.message }, 'notification connection lost');
      reconnect();
    });
    c.on('end', reconnect);
    c.on('notification', () => options.onNotify());
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
      backoffMs = 200;
      // Anything committed while we were not listening is picked up now.
      options.onNotify();
    } catch (err) {
      options.logger.warn({ err: (err as Error).message }, 'cannot LISTEN; retrying');
      reconnect();
    }
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
