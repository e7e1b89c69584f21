import { Client } from 'pg';
import { callMetadata, type Logger, type ServiceClient } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import type { EventsRepository, IncomingEvent } from '../data/events-repository';
import { endpointAbout } from '../domain/endpoint-events';
import { serializeEnvelope } from '../domain/envelope';
import type { WebhookMetrics } from './metrics';

export const CONSUMER_NAME = 'accounts-events';
const LOCK_KEY = 'propdesk-webhooks-consumer';
const MAX_BATCH = 500;
const HIGH_WATER = 2000;

export interface EventConsumerOptions {
  databaseUrl: string;
  accounts: ServiceClient<accountsv1.AccountsServiceClient>;
  events: EventsRepository;
  logger: Logger;
  /** How often a standby replica asks for the consumer lock. */
  lockPollMs?: number;
  /** The outbox backlog and whether this replica consumes (WEBHOOKS_METRICS_PORT). */
  metrics?: WebhookMetrics;
}

export interface EventConsumer {
  /** True while this replica holds the consumer lock. */
  isLeader(): boolean;
  stop(): Promise<void>;
}

function toIncoming(message: accountsv1.StreamEventsResponse): IncomingEvent | undefined {
  const event = message.event;
  if (!event || !event.id) return undefined;
  const createdAt = event.createdAt ?? new Date();
  const data = (event.data ?? {}) as Record<string, unknown>;
  return {
    id: event.id,
    organizationId: event.organizationId,
    livemode: event.livemode,
    type: event.type,
    createdAt,
    trace: event.traceparent ? { traceparent: event.traceparent, tracestate: event.tracestate } : null,
    aboutEndpoint: endpointAbout(event.type, data),
    body: serializeEnvelope({
      id: event.id,
      type: event.type,
      created_at: createdAt.toISOString(),
      organization_id: event.organizationId,
      livemode: event.livemode,
      sequence: event.sequence === undefined ? null : Number(event.sequence),
      data,
    }),
  };
}

/**
 * One consumer per deployment: replicas compete for a session advisory lock held on a dedicated
 * connection; the holder streams events from the stored position, the others wait and take over
 * when the holder's connection goes away. Any failure (accounts down, database gone) ends the
 * stream and the loop starts again with backoff from the last committed position.
 */
export function startEventConsumer(options: EventConsumerOptions): EventConsumer {
  const { logger } = options;
  let stopped = false;
  let leader = false;
  let cancelCurrent: (() => void) | undefined;
  let wakeSleep: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const consume = (lockClient: Client): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      void (async () => {
        const after = await options.events.position(CONSUMER_NAME);
        if (stopped) return resolve();
        const stream = options.accounts.raw.streamEvents({ afterPosition: after }, callMetadata());
        const buffer: accountsv1.StreamEventsResponse[] = [];
        // The newest settled outbox position the accounts service has told us of.
        let head = 0;
        let flushing = false;
        let ended = false;
        let settled = false;
        const settle = (err?: Error) => {
          if (settled) return;
          settled = true;
          cancelCurrent = undefined;
          lockClient.removeListener('error', onLockLost);
          if (err) reject(err);
          else resolve();
        };
        const onLockLost = (err: Error) => {
          stream.cancel();
          settle(new Error(`consumer lock connection lost: ${err.message}`));
        };
        lockClient.on('error', onLockLost);
        cancelCurrent = () => {
          stream.cancel();
          settle();
        };
        const flush = async () => {
          if (flushing) return;
          flushing = true;
          try {
            while (buffer.length > 0 && !settled) {
              const batch = buffer.splice(0, MAX_BATCH);
              const incoming = batch.map(toIncoming).filter((e): e is IncomingEvent => e !== undefined);
              const last = batch[batch.length - 1];
              await options.events.ingest(CONSUMER_NAME, incoming, last.position);
              options.metrics?.consumed(Number(last.position), Math.max(head, Number(last.position)));
              if (stream.isPaused() && buffer.length < HIGH_WATER / 2) stream.resume();
            }
          } catch (err) {
            stream.cancel();
            settle(err as Error);
          } finally {
            flushing = false;
          }
          if (ended && buffer.length === 0) settle(new Error('event stream ended'));
        };
        stream.on('data', (message: accountsv1.StreamEventsResponse) => {
          head = Math.max(head, Number(message.headPosition || 0));
          buffer.push(message);
          if (buffer.length >= HIGH_WATER) stream.pause();
          void flush();
        });
        stream.on('error', (err: Error) => settle(err));
        stream.on('end', () => {
          ended = true;
          if (!flushing && buffer.length === 0) settle(new Error('event stream ended'));
        });
      })().catch((err: unknown) => reject(err as Error));
    });

  const run = async () => {
    let backoffMs = 200;
    while (!stopped) {
      const lockClient = new Client({ connectionString: options.databaseUrl, application_name: 'propdesk-webhooks-consumer' });
      lockClient.on('error', () => undefined);
      try {
        await lockClient.connect();
        while (!stopped) {
          const res = await lockClient.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [LOCK_KEY]);
          if (res.rows[0]?.ok) break;
          await sleep(options.lockPollMs ?? 1000);
        }
        if (stopped) break;
        leader = true;
        options.metrics?.consuming(true);
        logger.info('event consumer holds the lock; streaming events');
        const started = Date.now();
        await consume(lockClient);
        if (Date.now() - started > 10_000) backoffMs = 200;
      } catch (err) {
        if (!stopped) logger.warn({ err: (err as Error).message, retryInMs: backoffMs }, 'event stream interrupted');
      } finally {
        leader = false;
        options.metrics?.consuming(false);
        await lockClient.end().catch(() => undefined);
      }
      if (stopped) break;
      await sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, 5000);
    }
  };
  const running = run();

  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      cancelCurrent?.();
      wakeSleep?.();
      await running;
    },
  };
}
