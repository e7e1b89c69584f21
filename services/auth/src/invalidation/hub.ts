import type { ServerWritableStream } from '@grpc/grpc-js';
import { AppError, toServiceError, type Logger } from '@propdesk/kit';
import type { authv1 } from '@propdesk/proto';

/**
 * What a cache must drop (one key, or every key of one organization), or a key that now exists;
 * a roll sends both: the old key to drop and the new key's fingerprint.
 */
export interface Invalidation {
  apiKeyId?: string;
  organizationId?: string;
  /** A new key's fingerprint: gateways add it before CreateApiKey answers. */
  keyFingerprint?: string;
}

/** How many fingerprints go in one message of a stream's initial load. */
const FINGERPRINT_CHUNK = 5000;

type WatchCall = ServerWritableStream<authv1.WatchInvalidationsRequest, authv1.WatchInvalidationsResponse>;

interface Watcher {
  watcherId: string;
  call: WatchCall;
  seq: number;
  acked: number;
  waiters: Array<{ seq: number; done: () => void }>;
  closed: boolean;
}

/**
 * The live WatchInvalidations streams of this auth replica.
 *
 * Guarantee (per replica): when deliver() resolves, every stream that was live on this replica
 * when it was called has either acknowledged the invalidation (its gateway dropped the cached
 * entries) or is gone: ended by its client, or ended here with an error because it did not
 * acknowledge within the ack timeout. A gateway must stop trusting its cache whenever its
 * stream ends or heartbeats stop. A stream opened later starts with flush_all, so it cannot hold
 * anything cached from before the change. Seqs are per stream and acks are cumulative (the
 * gateway handles messages in order).
 */
export class InvalidationHub {
  private readonly watchers = new Map<string, Watcher>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly options: {
      logger: Logger;
      ackTimeoutMs: number;
      heartbeatMs: number;
      /** Every active key's fingerprint, sent after flush_all on each new stream. */
      loadFingerprints: () => Promise<string[]>;
    },
  ) {
    this.heartbeat = setInterval(() => {
      for (const watcher of this.watchers.values()) this.send(watcher, {});
    }, options.heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.watchers.size;
  }

  watch(call: WatchCall): void {
    const watcherId = call.request.watcherId ?? '';
    if (watcherId.length < 1 || watcherId.length > 200) {
      call.emit('error', toServiceError(new AppError('invalid_request', 'watcher_id must be 1 to 200 characters', 'watcher_id')));
      return;
    }
    const previous = this.watchers.get(watcherId);
    if (previous) this.drop(previous, 'replaced by a newer stream with the same watcher_id');
    const watcher: Watcher = { watcherId, call, seq: 0, acked: 0, waiters: [], closed: false };
    this.watchers.set(watcherId, watcher);
    const gone = () => this.remove(watcher);
    call.on('cancelled', gone);
    call.on('close', gone);
    call.on('finish', gone);
    this.send(watcher, { flushAll: true });
    // Registered before loading, so a key created meanwhile is announced to this stream too.
    this.options.loadFingerprints().then(
      (fingerprints) => {
        for (let i = 0; i < fingerprints.length; i += FINGERPRINT_CHUNK) {
          this.send(watcher, { keyFingerprints: fingerprints.slice(i, i + FINGERPRINT_CHUNK) });
        }
        this.send(watcher, { fingerprintsComplete: true });
      },
      (err: unknown) => {
        this.options.logger.warn({ err }, 'could not load key fingerprints for a watcher');
        this.drop(watcher, 'key fingerprints unavailable');
      },
    );
  }

  /** false when no stream of that watcher lives on this replica (the ack is relayed then). */
  ack(watcherId: string, seq: number): boolean {
    const watcher = this.watchers.get(watcherId);
    if (!watcher || watcher.closed) return false;
    if (Number.isSafeInteger(seq) && seq > watcher.acked) watcher.acked = Math.min(seq, watcher.seq);
    const pending: typeof watcher.waiters = [];
    for (const waiter of watcher.waiters) {
      if (waiter.seq <= watcher.acked) waiter.done();
      else pending.push(waiter);
    }
    watcher.waiters = pending;
    return true;
  }

  /** Pushes to every live local watcher and waits for each ack (or drops the watcher). */
  async deliver(invalidation: Invalidation): Promise<void> {
    await Promise.all([...this.watchers.values()].map((watcher) => this.deliverTo(watcher, invalidation)));
  }

  /** Ends every stream: the gateways reconnect and flush (used when invalidations may have been missed). */
  dropAll(reason: string): void {
    for (const watcher of [...this.watchers.values()]) this.drop(watcher, reason);
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.dropAll('auth service shutting down');
  }

  private deliverTo(watcher: Watcher, invalidation: Invalidation): Promise<void> {
    if (watcher.closed) return Promise.resolve();
    const seq = this.send(watcher, invalidation);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.options.logger.warn({ watcherId: watcher.watcherId, seq }, 'invalidation watcher did not acknowledge in time: dropped');
        this.drop(watcher, 'invalidation not acknowledged in time');
        resolve();
      }, this.options.ackTimeoutMs);
      watcher.waiters.push({
        seq,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private send(watcher: Watcher, fields: Partial<authv1.WatchInvalidationsResponse> & Invalidation): number {
    watcher.seq += 1;
    if (!watcher.closed) {
      watcher.call.write({
        seq: String(watcher.seq),
        apiKeyId: fields.apiKeyId ?? '',
        organizationId: fields.organizationId ?? '',
        flushAll: fields.flushAll ?? false,
        keyFingerprints: fields.keyFingerprint ? [fields.keyFingerprint] : (fields.keyFingerprints ?? []),
        fingerprintsComplete: fields.fingerprintsComplete ?? false,
      });
    }
    return watcher.seq;
  }

  /** The stream is no longer a cache we cover: whoever waits on it stops waiting. */
  private remove(watcher: Watcher): void {
    if (watcher.closed) return;
    watcher.closed = true;
    if (this.watchers.get(watcher.watcherId) === watcher) this.watchers.delete(watcher.watcherId);
    for (const waiter of watcher.waiters) waiter.done();
    watcher.waiters = [];
  }

  private drop(watcher: Watcher, reason: string): void {
    if (watcher.closed) return;
    this.remove(watcher);
    try {
      watcher.call.emit('error', toServiceError(new AppError('unavailable', `invalidation stream dropped: ${reason}`)));
    } catch (err) {
      this.options.logger.debug({ err }, 'could not end a dropped invalidation stream');
    }
  }
}
