import { execute, selectRows, type Sequelize, type StoredTraceContext } from '@propdesk/kit';
import { DELIVERIES_CHANNEL } from './deliveries-repository';

export interface IncomingEvent {
  id: string;
  organizationId: string;
  /** Fanned out only to endpoints of the same organization and mode (SPEC 13). */
  livemode: boolean;
  type: string;
  /** The serialised envelope, stored once and sent byte for byte on every attempt. */
  body: string;
  createdAt: Date;
  /** The trace context of the transaction that wrote it in the accounts outbox, when traced. */
  trace: StoredTraceContext | null;
  /** The endpoint the event is about, which it is not delivered to (domain/endpoint-events.ts). */
  aboutEndpoint: string | null;
}

export function createEventsRepository(db: Sequelize) {
  return {
    async position(consumer: string): Promise<string> {
      const rows = await selectRows<{ position: string }>(db, 'SELECT position FROM consumer_offsets WHERE name = $name', { name: consumer });
      return rows[0]?.position ?? '0';
    },

    /**
     * Turns a batch of stream events into delivery rows and advances the stored position in the
     * same transaction: a crash either keeps both or neither, so no event is lost or skipped.
     * Replays are harmless: events and (endpoint, event) pairs are unique and conflicts are ignored.
     * An event reaches only the endpoints of its organization and its mode: a test event never a
     * live endpoint, a live one never a test endpoint.
     * Disabled endpoints get 'skipped' rows, so re-enabling can ask for the missed events again.
     * An event about an endpoint (webhook_endpoint.disabled) goes to the others only.
     */
    async ingest(consumer: string, events: IncomingEvent[], position: string): Promise<number> {
      return db.transaction(async (transaction) => {
        const bind = {
          ids: events.map((e) => e.id),
          orgs: events.map((e) => e.organizationId),
          livemodes: events.map((e) => e.livemode),
          types: events.map((e) => e.type),
          bodies: events.map((e) => e.body),
          createdAts: events.map((e) => e.createdAt.toISOString()),
          traceparents: events.map((e) => e.trace?.traceparent ?? null),
          tracestates: events.map((e) => e.trace?.tracestate || null),
          abouts: events.map((e) => e.aboutEndpoint),
        };
        await execute(
          db,
          `INSERT INTO events (id, organization_id, livemode, type, body, created_at, traceparent, tracestate)
           SELECT v.id, v.org, v.livemode, v.type, v.body, v.created_at, v.traceparent, v.tracestate
           FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $bodies::text[], $createdAts::timestamptz[],
                       $traceparents::text[], $tracestates::text[], $abouts::text[])
             AS v(id, org, livemode, type, body, created_at, traceparent, tracestate, about)
           WHERE EXISTS (SELECT 1 FROM endpoints e WHERE e.organization_id = v.org AND e.livemode = v.livemode AND e.deleted_at IS NULL
                           AND (cardinality(e.events) = 0 OR v.type = ANY (e.events)) AND e.id::text IS DISTINCT FROM v.about)
           ON CONFLICT (id) DO NOTHING`,
          bind,
          transaction,
        );
        const inserted = await selectRows<{ status: string }>(
          db,
          `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, next_attempt_at, error)
           SELECT gen_random_uuid(), e.id, v.id, v.type,
                  CASE WHEN e.status = 'enabled' THEN 'pending' ELSE 'skipped' END,
                  CASE WHEN e.status = 'enabled' THEN now() END,
                  CASE WHEN e.status = 'enabled' THEN NULL ELSE 'endpoint disabled' END
           FROM unnest($ids::text[], $orgs::text[], $livemodes::boolean[], $types::text[], $abouts::text[]) WITH ORDINALITY AS v(id, org, livemode, type, about, n)
           JOIN events ev ON ev.id = v.id
           JOIN endpoints e ON e.organization_id = v.org AND e.livemode = v.livemode AND e.deleted_at IS NULL
                           AND (cardinality(e.events) = 0 OR v.type = ANY (e.events)) AND e.id::text IS DISTINCT FROM v.about
           ORDER BY v.n, e.seq
           ON CONFLICT (endpoint_id, event_id) DO NOTHING
           RETURNING status`,
          { ids: bind.ids, orgs: bind.orgs, livemodes: bind.livemodes, types: bind.types, abouts: bind.abouts },
          transaction,
        );
        await execute(
          db,
          `INSERT INTO consumer_offsets (name, position) VALUES ($name, $position)
           ON CONFLICT (name) DO UPDATE SET position = GREATEST(consumer_offsets.position, EXCLUDED.position), updated_at = now()`,
          { name: consumer, position },
          transaction,
        );
        if (inserted.some((r) => r.status === 'pending')) await execute(db, `SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`, {}, transaction);
        return inserted.length;
      });
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
