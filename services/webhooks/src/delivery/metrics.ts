import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { selectOne, type Sequelize } from '@propdesk/kit';

/** What a delivery attempt came to: `retrying` failed with another attempt scheduled, `failed` with none left. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

/**
 * The webhooks service's own metrics (SPEC 16), on its registry (WEBHOOKS_METRICS_PORT): attempts
 * by outcome and their duration, counted by the dispatcher; the outbox backlog, set by the event
 * consumer; and, read from the database when Prometheus scrapes, the pending deliveries, the age
 * of the oldest and the endpoints failing since their last success.
 */
export interface WebhookMetrics {
  attempt(outcome: DeliveryOutcome, seconds: number): void;
  /** The event consumer read up to `position` of an outbox whose newest settled event is `head`. */
  consumed(position: number, head: number): void;
  /** Whether this replica holds the event consumer's lock (one replica consumes, the others wait). */
  consuming(leader: boolean): void;
}

/** Gauges read at scrape time share one query, at most once a second. */
const SNAPSHOT_MS = 1000;

interface Snapshot {
  pending: string;
  oldest_age: number | null;
  overdue: number | null;
  failing: string;
}

export function createWebhookMetrics(registry: Registry, db: Sequelize): WebhookMetrics {
  let snapshot: { at: number; value: Promise<Snapshot | undefined> } | undefined;
  const read = (): Promise<Snapshot | undefined> => {
    if (!snapshot || Date.now() - snapshot.at > SNAPSHOT_MS) {
      snapshot = {
        at: Date.now(),
        value: selectOne<Snapshot>(
          db,
          `SELECT (SELECT count(*) FROM deliveries WHERE status = 'pending')::text AS pending,
                  (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM deliveries WHERE status = 'pending') AS oldest_age,
                  (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 FROM deliveries
                    WHERE status = 'pending' AND next_attempt_at <= now()) AS overdue,
                  (SELECT count(*) FROM endpoints WHERE status = 'enabled' AND deleted_at IS NULL AND failing_since IS NOT NULL)::text AS failing`,
        ).catch(() => undefined),
      };
    }
    return snapshot.value;
  };
  // A scrape while the database is away leaves the gauges as they were; the database's own
  // gauge (propdesk_database_up) says why.
  const fromDatabase = (name: string, help: string, pick: (s: Snapshot) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const s = await read();
        if (s) this.set(pick(s));
      },
    });
  fromDatabase('propdesk_webhook_pending_deliveries', 'Deliveries waiting for their next attempt (due or scheduled)', (s) => Number(s.pending));
  fromDatabase('propdesk_webhook_oldest_pending_delivery_age_seconds', 'Age of the oldest pending delivery (0 when none is pending)', (s) => s.oldest_age ?? 0);
  // A retry scheduled hours ahead is pending but not late: this one is what a dispatcher that
  // cannot keep up (or does not run) shows.
  fromDatabase('propdesk_webhook_delivery_lag_seconds', 'How long the most overdue delivery has been due (0 when none is)', (s) => s.overdue ?? 0);
  fromDatabase('propdesk_webhook_failing_endpoints', 'Enabled endpoints whose deliveries have failed since their last success', (s) => Number(s.failing));

  const attempts = new Counter({
    name: 'propdesk_webhook_deliveries_total',
    help: 'Delivery attempts, by outcome: succeeded, retrying (failed, another attempt scheduled), failed (failed, none left)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'propdesk_webhook_delivery_duration_seconds',
    help: 'Duration of a delivery attempt, from the request to the receiver answering or failing',
    labelNames: ['outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const backlog = new Gauge({
    name: 'propdesk_webhook_outbox_backlog_events',
    help: 'Outbox positions written by the accounts service and not yet turned into deliveries (0 once caught up)',
    registers: [registry],
  });
  const leader = new Gauge({ name: 'propdesk_webhook_event_consumer_leader', help: '1 while this replica consumes the accounts outbox', registers: [registry] });
  leader.set(0);
  return {
    attempt(outcome, seconds) {
      attempts.inc({ outcome });
      duration.observe({ outcome }, seconds);
    },
    consumed(position, head) {
      backlog.set(Math.max(0, head - position));
    },
    consuming(isLeader) {
      leader.set(isLeader ? 1 : 0);
    },
  };
}
