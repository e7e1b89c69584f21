import { randomUUID } from 'node:crypto';
import type { ClientReadableStream } from '@grpc/grpc-js';
import type { authv1 } from '@propdesk/proto';
import { callMetadata, type Logger } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import type { KeyCache } from './key-cache';

export interface InvalidationWatcher {
  /** True while the stream is open and was heard from recently: only then may the cache be trusted. */
  covered(): boolean;
  stop(): void;
}

export interface WatcherOptions {
  /** The cache is trusted only if the stream spoke within this window (heartbeats come every second). */
  staleAfterMs?: number;
  maxBackoffMs?: number;
  ackDeadlineMs?: number;
}

/**
 * Keeps the key cache honest: follows auth's WatchInvalidations stream, drops what it is told
 * to drop, then acknowledges so that the revoking RPC can answer. While the stream is down the
 * cache is emptied and not used; it reconnects with backoff.
 */
export function watchInvalidations(
  auth: ServiceClient<authv1.AuthServiceClient>,
  cache: KeyCache,
  logger: Logger,
  options: WatcherOptions = {},
): InvalidationWatcher {
  const staleAfterMs = options.staleAfterMs ?? 3000;
  const maxBackoffMs = options.maxBackoffMs ?? 2000;
  const ackDeadlineMs = options.ackDeadlineMs ?? 2000;
  const watcherId = randomUUID();
  let stream: ClientReadableStream<authv1.WatchInvalidationsResponse> | undefined;
  let connected = false;
  let lastHeardAt = 0;
  let backoffMs = 100;
  let stopped = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const disconnect = (reason: string) => {
    if (stream === undefined) return;
    stream.removeAllListeners();
    stream.on('error', () => undefined);
    stream.cancel();
    stream = undefined;
    if (connected && !stopped) logger.warn({ reason }, 'invalidation stream lost: key cache disabled');
    connected = false;
    cache.clear();
    if (stopped) return;
    reconnectTimer = setTimeout(open, backoffMs);
    reconnectTimer.unref();
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  };

  const handle = (message: authv1.WatchInvalidationsResponse) => {
    lastHeardAt = Date.now();
    const isInvalidation = message.flushAll || message.apiKeyId !== '' || message.organizationId !== '';
    if (message.flushAll) cache.clear();
    if (message.apiKeyId !== '') cache.dropKey(message.apiKeyId);
    if (message.organizationId !== '') cache.dropOrganization(message.organizationId);
    if (message.flushAll && !connected) {
      connected = true;
      backoffMs = 100;
      logger.info('invalidation stream connected: key cache enabled');
    }
    if (!isInvalidation) return;
    auth.call.ackInvalidation({ watcherId, seq: message.seq }, { deadlineMs: ackDeadlineMs }).catch((err: unknown) => {
      logger.warn({ err, seq: message.seq }, 'could not acknowledge an invalidation');
      // The revoking side drops a watcher that does not ack; start over so nothing stale survives.
      disconnect('ack failed');
    });
  };

  function open(): void {
    if (stopped) return;
    const current = auth.raw.watchInvalidations({ watcherId }, callMetadata());
    stream = current;
    current.on('data', (message: authv1.WatchInvalidationsResponse) => {
      if (stream === current) handle(message);
    });
    current.on('error', (err: Error) => {
      if (stream === current) disconnect(err.message);
    });
    current.on('end', () => {
      if (stream === current) disconnect('stream ended');
    });
  }

  open();

  return {
    covered: () => connected && Date.now() - lastHeardAt <= staleAfterMs,
    stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      disconnect('stopped');
    },
  };
}
