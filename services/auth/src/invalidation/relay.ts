import { randomUUID } from 'node:crypto';
import { AppError, execute, listenToChannel, type Logger, type Sequelize } from '@propdesk/kit';
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

  const onMessage = (payload: string) => {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
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

  const listener = listenToChannel({
    databaseUrl: options.databaseUrl,
    channel: INVALIDATION_CHANNEL,
    applicationName: 'propdesk-auth-invalidations',
    logger,
    retry: { initialMs: 1000, maxMs: 1000 },
    onNotification: onMessage,
    onLost: () => hub.dropAll('invalidation feed between auth replicas lost'),
  });
  try {
    // Serving before this replica hears the others would let a revoke elsewhere go unnoticed.
    await listener.listening;
  } catch (err) {
    await listener.close();
    throw err;
  }

  const notify = async (message: Message): Promise<void> => {
    await execute(sequelize, 'SELECT pg_notify($channel, $payload)', { channel: INVALIDATION_CHANNEL, payload: JSON.stringify(message) });
  };

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
    close: () => listener.close(),
  };
}
