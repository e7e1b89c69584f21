import { randomUUID } from 'node:crypto';
import { AppError, type Logger, type Sequelize } from '@propdesk/kit';
import { Client } from 'pg';
import type { Invalidation, InvalidationHub } from './hub';

export const INVALIDATION_CHANNEL = 'propdesk_auth_invalidations';

type Message =
  | { origin: string; kind: 'invalidate'; apiKeyId?: string; organizationId?: string; keyFingerprint?: string }
  | { origin: string; kind: 'ack'; watcherId: string; seq: number };

/**
 * Carries invalidations and acks between auth replicas through PostgreSQL LISTEN/NOTIFY.
 *
 * The replica that handles a revoke (or plan change) waits for its own watchers' acks; the
 * other replicas push to theirs when the notification arrives, shortly after, without the
 * revoke waiting for them (accepted: one replica in normal operation, and a short window
 * otherwise). Acks are relayed too, because a gateway's unary AckInvalidation may be balanced
 * to another replica than the one holding its stream. If the LISTEN connection breaks, this
 * replica may miss invalidations, so it ends every local stream (gateways reconnect and flush).
 */
export interface InvalidationRelay {
  /** Local delivery (awaited acks) plus the broadcast to the other replicas. */
  publish(invalidation: Invalidation): Promise<void>;
  ack(watcherId: string, seq: number): Promise<void>;
  close(): Promise<void>;
}

export async function startInvalidationRelay(options: {
  databaseUrl: string;
  sequelize: Sequelize;
  hub: InvalidationHub;
  logger: Logger;
}): Promise<InvalidationRelay> {
  const { hub, logger, sequelize } = options;
  const origin = randomUUID();
  let client: Client | undefined;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const onMessage = (payload: string | undefined) => {
    let message: Message;
    try {
      message = JSON.parse(payload ?? '') as Message;
    } catch {
      return;
    }
    if (message.origin === origin) return;
    if (message.kind === 'ack') {
      hub.ack(message.watcherId, message.seq);
    } else {
      hub.deliver({ apiKeyId: message.apiKeyId, organizationId: message.organizationId, keyFingerprint: message.keyFingerprint }).catch((err: unknown) =>
        logger.warn({ err }, 'relayed invalidation failed'),
      );
    }
  };

  const connect = async (): Promise<void> => {
    const c = new Client({ connectionString: options.databaseUrl, application_name: 'propdesk-auth-invalidations' });
    c.on('notification', (n) => {
      if (n.channel === INVALIDATION_CHANNEL) onMessage(n.payload);
    });
    const lost = (err?: unknown) => {
      if (closed || client !== c) return;
      client = undefined;
      logger.warn({ err }, 'invalidation feed lost: dropping local watchers and reconnecting');
      hub.dropAll('invalidation feed between auth replicas lost');
      c.end().catch(() => undefined);
      scheduleReconnect();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    await c.connect();
    await c.query(`LISTEN ${INVALIDATION_CHANNEL}`);
    client = c;
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch((err: unknown) => {
        logger.warn({ err }, 'invalidation feed reconnect failed');
        scheduleReconnect();
      });
    }, 1000);
    reconnectTimer.unref();
  };

  const notify = async (message: Message): Promise<void> => {
    await sequelize.query('SELECT pg_notify(:channel, :payload)', {
      replacements: { channel: INVALIDATION_CHANNEL, payload: JSON.stringify(message) },
    });
  };

  await connect();

  return {
    async publish(invalidation) {
      const broadcast = notify({ origin, kind: 'invalidate', ...invalidation }).catch((err: unknown) => {
        logger.error({ err }, 'could not broadcast an invalidation to the other auth replicas');
        // the change is committed; the caller retries (revocation is idempotent and publishes again)
        throw new AppError('unavailable', 'the change was saved but could not be propagated; retry');
      });
      await Promise.all([hub.deliver(invalidation), broadcast]);
    },
    async ack(watcherId, seq) {
      if (hub.ack(watcherId, seq)) return;
      await notify({ origin, kind: 'ack', watcherId, seq });
    },
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
