import { affectedRows, deleteInBatches, type RetentionScheduler, type Sequelize } from '@propdesk/kit';

/**
 * The webhooks service's retention tasks: delivered deliveries (succeeded, or skipped) with their
 * attempts once their last change is older than WEBHOOK_DELIVERIES_RETENTION, then the service's
 * copy of an event once it is older than WEBHOOK_EVENTS_RETENTION and no delivery refers to it any
 * more. Pending deliveries and failed ones (which an operator may still retry) stay, and so do
 * their events.
 */
export function registerWebhooksRetention(retention: RetentionScheduler, db: Sequelize, horizons: { deliveriesMs: number; eventsMs: number }): void {
  retention.register({
    name: 'webhook deliveries',
    horizonMs: horizons.deliveriesMs,
    run: (cutoff) =>
      deleteInBatches((batch) =>
        // One statement: the attempts and their deliveries go together (NO ACTION checks the
        // foreign key at the end of the statement).
        affectedRows(
          db,
          `WITH gone AS (
             SELECT id FROM deliveries WHERE status IN ('succeeded', 'skipped') AND updated_at < $cutoff LIMIT $batch
           ), attempts AS (
             DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM gone)
           )
           DELETE FROM deliveries WHERE id IN (SELECT id FROM gone)`,
          { cutoff, batch },
        ),
      ),
  });
  retention.register({
    name: 'webhook events',
    horizonMs: horizons.eventsMs,
    run: (cutoff) =>
      deleteInBatches((batch) =>
        affectedRows(
          db,
          `DELETE FROM events WHERE id IN (
             SELECT e.id FROM events e
              WHERE e.received_at < $cutoff AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
              LIMIT $batch)`,
          { cutoff, batch },
        ),
      ),
  });
}
