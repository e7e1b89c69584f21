import { execute, selectRows, type Sequelize, type StoredTraceContext } from '@propdesk/kit';
import { endpointDisabledEvent } from '../domain/endpoint-events';
import type { OutboxRepository } from './outbox-repository';

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  organizationId: string;
  /** The trace of the request that wrote the event: the attempt is a span of it. */
  trace: StoredTraceContext | null;
  /** Attempts made before this one. */
  attempt: number;
  attemptBase: number;
  leaseToken: string;
  body: string;
  url: string;
  secretSealed: string;
  /** The secret a rotation replaced, while it still signs (its expiry is checked again at send time). */
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  organization_id: string;
  traceparent: string | null;
  tracestate: string | null;
  attempt: number;
  attempt_base: number;
  lease_token: string;
  body: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
  /** Null: no retry left (or success). */
  nextAttemptAt: Date | null;
  /** 410 Gone: the receiver asked us to stop. */
  gone: boolean;
}

export function createDispatchRepository(db: Sequelize, outbox: OutboxRepository) {
  return {
    /**
     * Claims due deliveries under a lease. Rows are locked with SKIP LOCKED so replicas never take the
     * same row; a row whose worker died becomes claimable again when its lease passes. Per endpoint,
     * rows already leased (by any replica) count against the cap, so one hanging endpoint only ever
     * occupies `perEndpoint` workers.
     */
    async claim(limit: number, perEndpoint: number, leaseMs: number): Promise<ClaimedDelivery[]> {
      const rows = await selectRows<ClaimedRow>(
        db,
        `WITH busy AS (
           SELECT endpoint_id, count(*) AS n FROM deliveries
           WHERE status = 'pending' AND locked_until IS NOT NULL AND locked_until > now() GROUP BY endpoint_id
         ), candidates AS (
           SELECT c.id FROM endpoints e
           LEFT JOIN busy b ON b.endpoint_id = e.id
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM deliveries d
             WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now()
               AND (d.locked_until IS NULL OR d.locked_until <= now())
             ORDER BY d.next_attempt_at, d.seq
             LIMIT greatest($perEndpoint - coalesce(b.n, 0), 0)
           ) c
           WHERE e.status = 'enabled' AND e.deleted_at IS NULL
           ORDER BY c.next_attempt_at LIMIT $limit
         ), locked AS (
           SELECT d.id FROM deliveries d
           WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'pending'
             AND (d.locked_until IS NULL OR d.locked_until <= now())
           FOR UPDATE OF d SKIP LOCKED
         ), claimed AS (
           UPDATE deliveries d SET locked_until = now() + $leaseMs * interval '1 millisecond', lease_token = gen_random_uuid()
           FROM locked WHERE d.id = locked.id
           RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.attempt_base, d.lease_token
         )
         SELECT c.*, ev.body, ev.organization_id, ev.traceparent, ev.tracestate, e.url, e.secret_sealed,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END AS previous_secret_sealed,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_expires_at END AS previous_secret_expires_at
         FROM claimed c JOIN events ev ON ev.id = c.event_id JOIN endpoints e ON e.id = c.endpoint_id`,
        { limit, perEndpoint, leaseMs },
      );
      return rows.map((r) => ({
        id: r.id,
        endpointId: r.endpoint_id,
        eventId: r.event_id,
        eventType: r.event_type,
        organizationId: r.organization_id,
        trace: r.traceparent ? { traceparent: r.traceparent, tracestate: r.tracestate ?? '' } : null,
        attempt: r.attempt,
        attemptBase: r.attempt_base,
        leaseToken: r.lease_token,
        body: r.body,
        url: r.url,
        secretSealed: r.secret_sealed,
        previousSecretSealed: r.previous_secret_sealed,
        previousSecretExpiresAt: r.previous_secret_expires_at ? new Date(r.previous_secret_expires_at) : null,
      }));
    },

    /** Gives a claimed row back untouched (graceful shutdown) so it need not wait for its lease. */
    async release(delivery: ClaimedDelivery): Promise<void> {
      await execute(db, 'UPDATE deliveries SET locked_until = NULL, lease_token = NULL WHERE id = $id AND lease_token = $token', {
        id: delivery.id,
        token: delivery.leaseToken,
      });
    },

    /**
     * Records one attempt and its consequences in one transaction. The endpoint row is locked first
     * on every path, so concurrent completions for one endpoint serialise instead of deadlocking.
     * Returns whether the endpoint was disabled by this outcome: then webhook_endpoint.disabled is
     * in the service's outbox, committed with the disabling (exactly once: only the completion
     * that finds the endpoint enabled under its lock disables it).
     */
    async complete(outcome: AttemptOutcome, decideDisable: (failingSince: Date) => boolean): Promise<{ disabled: boolean }> {
      const { delivery } = outcome;
      if (outcome.succeeded) {
        // The common case in one atomic statement (one round trip instead of a five-step transaction).
        await execute(
          db,
          `WITH done AS (
             UPDATE deliveries SET attempt = $attempt, status = 'succeeded', next_attempt_at = NULL,
               response_status = $responseStatus, error = NULL, duration_ms = $durationMs,
               first_attempt_at = coalesce(first_attempt_at, $at), last_attempt_at = $at, locked_until = NULL, lease_token = NULL, updated_at = now()
             WHERE id = $id AND lease_token = $token RETURNING id
           ), recorded AS (
             INSERT INTO delivery_attempts (delivery_id, attempt, response_status, error, duration_ms, attempted_at, next_attempt_at)
             VALUES ($id, $attempt, $responseStatus, NULL, $durationMs, $at, NULL)
           ), healthy AS (
             -- skipped when nothing changes, so parallel successes to one endpoint do not queue on its row
             UPDATE endpoints SET last_success_at = now(), failing_since = NULL
             WHERE id = $endpoint AND (failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at < now() - interval '10 seconds')
           )
           SELECT count(*) FROM done`,
          {
            id: delivery.id,
            token: delivery.leaseToken,
            endpoint: delivery.endpointId,
            attempt: delivery.attempt + 1,
            responseStatus: outcome.responseStatus,
            durationMs: outcome.durationMs,
            at: outcome.attemptedAt,
          },
        );
        return { disabled: false };
      }
      return db.transaction(async (transaction) => {
        let disableReason: string | null = null;
        const rows = await selectRows<{ failing_since: Date; status: string }>(
          db,
          `UPDATE endpoints SET failing_since = coalesce(failing_since, $at) WHERE id = $id RETURNING failing_since, status`,
          { id: delivery.endpointId, at: outcome.attemptedAt },
          transaction,
        );
        const endpoint = rows[0];
        if (endpoint && endpoint.status === 'enabled') {
          if (outcome.gone) disableReason = 'endpoint answered 410 Gone';
          else if (decideDisable(new Date(endpoint.failing_since))) disableReason = 'no successful delivery for too long';
        }
        if (disableReason) {
          const [disabled] = await selectRows<{ id: string; organization_id: string; livemode: boolean; url: string }>(
            db,
            `UPDATE endpoints SET status = 'disabled', disabled_reason = $reason WHERE id = $id RETURNING id, organization_id, livemode, url`,
            { id: delivery.endpointId, reason: disableReason },
            transaction,
          );
          await outbox.record(
            transaction,
            endpointDisabledEvent({ id: disabled.id, organizationId: disabled.organization_id, livemode: disabled.livemode, url: disabled.url }, disableReason),
          );
        }
        const attemptNumber = delivery.attempt + 1;
        const updated = await selectRows<{ id: string }>(
          db,
          `UPDATE deliveries d SET
             attempt = $attempt,
             status = CASE
               WHEN $succeeded THEN 'succeeded'
               WHEN e.status <> 'enabled' OR e.deleted_at IS NOT NULL THEN 'skipped'
               WHEN $next::timestamptz IS NULL THEN 'failed'
               ELSE 'pending' END,
             next_attempt_at = CASE WHEN $succeeded OR e.status <> 'enabled' OR e.deleted_at IS NOT NULL THEN NULL ELSE $next::timestamptz END,
             response_status = $responseStatus, error = $error, duration_ms = $durationMs,
             first_attempt_at = coalesce(d.first_attempt_at, $at), last_attempt_at = $at,
             locked_until = NULL, lease_token = NULL, updated_at = now()
           FROM endpoints e
           WHERE d.id = $id AND d.lease_token = $token AND e.id = d.endpoint_id
           RETURNING d.id`,
          {
            id: delivery.id,
            token: delivery.leaseToken,
            attempt: attemptNumber,
            succeeded: outcome.succeeded,
            next: outcome.nextAttemptAt,
            responseStatus: outcome.responseStatus,
            error: outcome.error,
            durationMs: outcome.durationMs,
            at: outcome.attemptedAt,
          },
          transaction,
        );
        await execute(
          db,
          `INSERT INTO delivery_attempts (delivery_id, attempt, response_status, error, duration_ms, attempted_at, next_attempt_at)
           VALUES ($id, $attempt, $responseStatus, $error, $durationMs, $at, $next)`,
          {
            id: delivery.id,
            attempt: attemptNumber,
            responseStatus: outcome.responseStatus,
            error: outcome.error,
            durationMs: outcome.durationMs,
            at: outcome.attemptedAt,
            next: updated.length > 0 && !outcome.succeeded && !disableReason ? outcome.nextAttemptAt : null,
          },
          transaction,
        );
        if (disableReason) {
          await execute(
            db,
            `UPDATE deliveries SET status = 'skipped', error = coalesce(error, 'endpoint disabled'), next_attempt_at = NULL, updated_at = now()
             WHERE endpoint_id = $id AND status = 'pending'`,
            { id: delivery.endpointId },
            transaction,
          );
        }
        return { disabled: disableReason !== null };
      });
    },
  };
}

export type DispatchRepository = ReturnType<typeof createDispatchRepository>;
