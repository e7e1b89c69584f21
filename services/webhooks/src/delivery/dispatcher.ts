import { ATTR_ORGANIZATION_ID, inSpanOf, SpanKind, SpanStatusCode, type Logger, type SecretBox } from '@propdesk/kit';
import type { ClaimedDelivery, DispatchRepository } from '../data/dispatch-repository';
import { nextRetry, parseRetryAfter, shouldDisable } from '../domain/retry-policy';
import type { HttpSender } from './http-sender';
import type { DeliveryOutcome, WebhookMetrics } from './metrics';

export interface DispatcherOptions {
  repository: DispatchRepository;
  sender: HttpSender;
  secrets: SecretBox;
  logger: Logger;
  concurrency: number;
  perEndpointConcurrency: number;
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  disableAfterHours: number;
  pollIntervalMs: number;
  /** Attempts by outcome (WEBHOOKS_METRICS_PORT). */
  metrics?: WebhookMetrics;
  /** An attempt's outcome disabled its endpoint (its webhook_endpoint.disabled is in the outbox). */
  onDisabled?: () => void;
}

export interface Dispatcher {
  /** Look for due deliveries now (NOTIFY, a finished attempt, a manual retry). */
  wake(): void;
  stop(): Promise<void>;
}

const CLAIM_BATCH = 100;

/**
 * The secrets that sign this attempt, newest first: the endpoint's secret, and the one a rotation
 * replaced while it has not expired at this moment. Read from the endpoint when the attempt is
 * claimed, so a retry of an old delivery is signed with the secrets valid now, not at its first attempt.
 */
export function signingSecrets(delivery: ClaimedDelivery, at: Date, box: SecretBox): string[] {
  const secrets = [box.open(delivery.secretSealed)];
  if (delivery.previousSecretSealed !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > at) {
    secrets.push(box.open(delivery.previousSecretSealed));
  }
  return secrets;
}

/**
 * Every replica runs one. It claims due rows under a lease, sends them with at most `concurrency`
 * requests in flight (and `perEndpointConcurrency` per endpoint, enforced in the claim query), and
 * records each attempt. Polling covers lost notifications and retries that become due.
 */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { repository, logger } = options;
  const leaseMs = options.timeoutMs + 15_000;
  const inFlight = new Map<string, { delivery: ClaimedDelivery; promise: Promise<void> }>();
  const shutdown = new AbortController();
  let stopped = false;
  let ticking = false;
  let again = false;

  /**
   * Each attempt is a span in the trace of the request that wrote the event (its outbox row kept
   * the trace context), parent of the HTTP request to the receiver and of the statements that
   * record the attempt.
   */
  const processOne = (delivery: ClaimedDelivery): Promise<void> =>
    inSpanOf(
      delivery.trace,
      `deliver ${delivery.eventType}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          [ATTR_ORGANIZATION_ID]: delivery.organizationId,
          'propdesk.event.id': delivery.eventId,
          'propdesk.event.type': delivery.eventType,
          'propdesk.webhook.endpoint_id': delivery.endpointId,
          'propdesk.webhook.delivery_id': delivery.id,
          'propdesk.webhook.attempt': delivery.attempt + 1,
        },
      },
      (span) =>
        attempt(delivery, (outcome, result) => {
          options.metrics?.attempt(outcome, result.durationMs / 1000);
          if (!span) return;
          span.setAttribute('propdesk.webhook.outcome', outcome);
          if (result.responseStatus !== null) span.setAttribute('http.response.status_code', result.responseStatus);
          if (outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'delivery failed' });
        }),
    );

  const attempt = async (
    delivery: ClaimedDelivery,
    report: (outcome: DeliveryOutcome, result: { responseStatus: number | null; error: string | null; durationMs: number }) => void,
  ): Promise<void> => {
    const attemptedAt = new Date();
    let secrets: string[];
    try {
      secrets = signingSecrets(delivery, attemptedAt, options.secrets);
    } catch (err) {
      logger.error({ err: (err as Error).message, endpointId: delivery.endpointId }, 'cannot open endpoint secret');
      return;
    }
    let result;
    try {
      result = await options.sender.send({ url: delivery.url, body: delivery.body, eventId: delivery.eventId, secrets, signal: shutdown.signal });
    } catch {
      // Interrupted by shutdown: not an attempt; hand the row back for another worker.
      await repository.release(delivery).catch(() => undefined);
      return;
    }
    const succeeded = result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
    const honoursRetryAfter = result.responseStatus === 429 || result.responseStatus === 503;
    const decision = succeeded
      ? { retry: false, delayMs: 0 }
      : nextRetry({
          scheduleSeconds: options.retryScheduleSeconds,
          attemptsMade: delivery.attempt + 1 - delivery.attemptBase,
          retryAfterSeconds: honoursRetryAfter ? parseRetryAfter(result.retryAfter) : undefined,
        });
    report(succeeded ? 'succeeded' : decision.retry ? 'retrying' : 'failed', result);
    const outcome = {
      delivery,
      succeeded,
      responseStatus: result.responseStatus,
      error: result.error,
      durationMs: result.durationMs,
      attemptedAt,
      nextAttemptAt: decision.retry ? new Date(Date.now() + decision.delayMs) : null,
      gone: result.responseStatus === 410,
    };
    // A database hiccup must not turn into a lost record: retry a few times, then leave it to the lease.
    // The first try runs even while stopping (the database closes after the dispatcher), so an
    // attempt that reached the receiver is not sent again after a graceful restart.
    for (let i = 0; i < 5 && !(stopped && i > 0); i += 1) {
      try {
        const { disabled } = await repository.complete(outcome, (since) => shouldDisable(since, new Date(), options.disableAfterHours));
        if (disabled) {
          logger.warn({ endpointId: delivery.endpointId }, 'endpoint disabled');
          options.onDisabled?.();
        }
        return;
      } catch (err) {
        logger.warn({ err: (err as Error).message, deliveryId: delivery.id }, 'cannot record attempt; retrying');
        await new Promise((r) => setTimeout(r, 200 * 2 ** i));
      }
    }
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        const free = options.concurrency - inFlight.size;
        if (free <= 0) break;
        const want = Math.min(free, CLAIM_BATCH);
        const claimed = await repository.claim(want, options.perEndpointConcurrency, leaseMs);
        for (const delivery of claimed) {
          const promise = processOne(delivery)
            .catch((err: unknown) => logger.error({ err }, 'delivery failed unexpectedly'))
            .finally(() => {
              inFlight.delete(delivery.id);
              wake();
            });
          inFlight.set(delivery.id, { delivery, promise });
        }
        if (claimed.length === want) again = true;
      } while (again && !stopped);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'claiming deliveries failed');
    } finally {
      ticking = false;
    }
  };

  // Completions arriving together trigger one claim, not one each.
  let wakeQueued = false;
  const wake = () => {
    if (stopped || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      void tick();
    });
  };

  const poll = setInterval(wake, options.pollIntervalMs);
  wake();

  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(poll);
      shutdown.abort();
      await Promise.allSettled([...inFlight.values()].map((f) => f.promise));
      while (ticking) await new Promise((r) => setTimeout(r, 10));
    },
  };
}
