import { randomUUID } from 'node:crypto';
import type { ClientReadableStream } from '@grpc/grpc-js';
import type { authv1 } from '@propdesk/proto';
import { callMetadata, type Logger } from '@propdesk/kit';
import type { ServiceClient } from '../clients';
import type { KeyCache } from './key-cache';

export interface InvalidationWatcher {
  /** True while the stream is open and was heard from recently: only then may the cache be trusted. */
  covered(): boolean;
  /**
   * true: a key with this hash may exist (its fingerprint is known); false: it certainly does not;
   * undefined: cannot tell (stream down, or the initial fingerprint load not finished).
   */
  mayExist(tokenSha256: string): boolean | undefined;
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
  // 32-bit fingerprints as numbers: a million keys cost a few MB, and a random token matches one
  // by chance about once in four thousand million.
  const fingerprints = new Set<number>();
  let fingerprintsComplete = false;
  const fingerprintOf = (hex: string) => Number.parseInt(hex.slice(0, 8), 16);

  const disconnect = (reason: string) => {
    if (stream === undefined) return;
    stream.removeAllListeners();
    stream.on('error', () => undefined);
    stream.cancel();
    stream = undefined;
    if (connected && !stopped) logger.warn({ reason }, 'invalidation stream lost: key cache disabled');
    connected = false;
    cache.clear();
    fingerprints.clear();
    fingerprintsComplete = false;
    if (stopped) return;
    reconnectTimer = setTimeout(open, backoffMs);
    reconnectTimer.unref();
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  };

  const handle = (message: authv1.WatchInvalidationsResponse) => {
    lastHeardAt = Date.now();
    const isInvalidation = message.flushAll || message.apiKeyId !== '' || message.organizationId !== '' || message.keyFingerprints.length > 0;
    if (message.flushAll) {
      cache.clear();
      fingerprints.clear();
      fingerprintsComplete = false;
    }
    for (const fingerprint of message.keyFingerprints) fingerprints.add(fingerprintOf(fingerprint));
    if (message.fingerprintsComplete) fingerprintsComplete = true;
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

  function covered(): boolean {
    return connected && Date.now() - lastHeardAt <= staleAfterMs;
  }

  return {
    covered,
    mayExist(tokenSha256) {
      if (!covered() || !fingerprintsComplete) return undefined;
      return fingerprints.has(fingerprintOf(tokenSha256));
    },
    stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      disconnect('stopped');
    },
  };
}
