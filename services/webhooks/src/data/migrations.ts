import { AUDIT_ENTRIES_DDL, IDEMPOTENCY_RECORDS_DDL, type Migration } from '@propdesk/kit';

export const migrations: Migration[] = [
  {
    name: '0001_webhooks_core',
    async up({ sql }) {
      await sql(`
        CREATE TABLE endpoints (
          id uuid PRIMARY KEY,
          seq bigserial UNIQUE,
          organization_id text NOT NULL,
          url text NOT NULL,
          events text[] NOT NULL DEFAULT '{}',
          secret_sealed text NOT NULL,
          status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
          disabled_reason text,
          created_at timestamptz NOT NULL DEFAULT now(),
          deleted_at timestamptz,
          last_success_at timestamptz,
          -- first failure since the last success: the clock for disabling a dead endpoint
          failing_since timestamptz
        );
        CREATE INDEX endpoints_org_idx ON endpoints (organization_id, seq) WHERE deleted_at IS NULL;

        CREATE TABLE events (
          id text PRIMARY KEY,
          organization_id text NOT NULL,
          type text NOT NULL,
          -- the exact envelope bytes sent on every attempt
          body text NOT NULL,
          created_at timestamptz NOT NULL,
          received_at timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE deliveries (
          id uuid PRIMARY KEY,
          seq bigserial UNIQUE,
          endpoint_id uuid NOT NULL REFERENCES endpoints (id),
          event_id text NOT NULL REFERENCES events (id),
          event_type text NOT NULL,
          status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
          attempt integer NOT NULL DEFAULT 0,
          -- retries are counted from here (moved on re-enable and manual retry), attempt stays monotonic
          attempt_base integer NOT NULL DEFAULT 0,
          response_status integer,
          error text,
          duration_ms integer,
          next_attempt_at timestamptz,
          locked_until timestamptz,
          lease_token uuid,
          first_attempt_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (endpoint_id, event_id)
        );
        CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
        CREATE INDEX deliveries_endpoint_idx ON deliveries (endpoint_id, seq);

        CREATE TABLE delivery_attempts (
          id bigserial PRIMARY KEY,
          delivery_id uuid NOT NULL REFERENCES deliveries (id),
          attempt integer NOT NULL,
          response_status integer,
          error text,
          duration_ms integer NOT NULL,
          attempted_at timestamptz NOT NULL,
          next_attempt_at timestamptz
        );
        CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempt);

        CREATE TABLE consumer_offsets (
          name text PRIMARY KEY,
          position bigint NOT NULL DEFAULT 0,
          updated_at timestamptz NOT NULL DEFAULT now()
        );
      `);
    },
  },
  {
    name: '0002_dispatch_indexes',
    async up({ sql }) {
      // The claim query probes each endpoint's earliest due rows and counts leased rows per endpoint;
      // both stay cheap however many deliveries are pending.
      await sql(`
        CREATE INDEX deliveries_endpoint_due_idx ON deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
        CREATE INDEX deliveries_leased_idx ON deliveries (endpoint_id) WHERE status = 'pending' AND locked_until IS NOT NULL;
      `);
    },
  },
  {
    name: '0003_secret_rotation',
    async up({ sql }) {
      // The secret a rotation replaced keeps signing beside the new one until it expires.
      await sql(`
        ALTER TABLE endpoints ADD COLUMN previous_secret_sealed text, ADD COLUMN previous_secret_expires_at timestamptz;
      `);
    },
  },
  {
    name: '0004_retention_indexes',
    async up({ sql }) {
      // Retention finds delivered deliveries by age, events by age, and whether a delivery still refers to an event.
      await sql(`
        CREATE INDEX deliveries_done_idx ON deliveries (updated_at) WHERE status IN ('succeeded', 'skipped');
        CREATE INDEX deliveries_event_idx ON deliveries (event_id);
        CREATE INDEX events_received_idx ON events (received_at);
      `);
    },
  },
  {
    // Idempotency-Key records of this service's writes, taken in the effect's transaction (kit idempotency.ts).
    name: '0005_idempotency_records',
    async up({ sql }) {
      await sql(IDEMPOTENCY_RECORDS_DDL);
    },
  },
  {
    name: '0006_trace_context_and_backlog',
    async up({ sql }) {
      // An event keeps the trace context its outbox row carried (SPEC 16): every delivery attempt
      // is a span of the trace of the request that caused the event. And the age of the oldest
      // pending delivery (a metric read at every scrape) is an index lookup.
      await sql(`
        ALTER TABLE events ADD COLUMN traceparent text, ADD COLUMN tracestate text;
        CREATE INDEX deliveries_pending_created_idx ON deliveries (created_at) WHERE status = 'pending';
      `);
    },
  },
  {
    // Test mode (SPEC 13): an endpoint belongs to the mode of the key that registered it and
    // receives only that mode's events; its list leads with (organization_id, livemode) like
    // every other tenant list, so an event finds its organization's endpoints of its mode at once.
    name: '0007_livemode',
    async up({ sql }) {
      await sql(`
        ALTER TABLE endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true;
        ALTER TABLE events ADD COLUMN livemode boolean NOT NULL DEFAULT true;
        DROP INDEX endpoints_org_idx;
        CREATE INDEX endpoints_org_idx ON endpoints (organization_id, livemode, seq) WHERE deleted_at IS NULL;
      `);
    },
  },
  {
    // SPEC 17's endpoint operations. An endpoint may carry its owner's description. A delivery
    // keeps when it was last attempted, so recover finds the failed ones attempted since a time
    // through an index of their own (filled here from the attempts recorded so far; one stopped
    // before any attempt, skipped, counts from when it was stopped). And the
    // service's own outbox: an event it emits (webhook_endpoint.disabled) is written in the
    // transaction that causes it, then forwarded to the accounts service's outbox (AppendEvents,
    // idempotent by id), which the feed and the fan-out read.
    name: '0008_endpoint_operations',
    async up({ sql }) {
      await sql(`
        ALTER TABLE endpoints ADD COLUMN description text;
        ALTER TABLE deliveries ADD COLUMN last_attempt_at timestamptz;
        UPDATE deliveries d SET last_attempt_at = a.at
          FROM (SELECT delivery_id, max(attempted_at) AS at FROM delivery_attempts GROUP BY delivery_id) a
         WHERE a.delivery_id = d.id;
        CREATE INDEX deliveries_recoverable_idx ON deliveries (endpoint_id, (coalesce(last_attempt_at, updated_at))) WHERE status IN ('failed', 'skipped');

        CREATE TABLE outbox (
          id text PRIMARY KEY,
          organization_id text NOT NULL,
          livemode boolean NOT NULL,
          type text NOT NULL,
          data jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          forwarded_at timestamptz
        );
        CREATE INDEX outbox_unforwarded_idx ON outbox (created_at) WHERE forwarded_at IS NULL;
      `);
    },
  },
  {
    // The audit log of this service's changes (SPEC 14): webhook endpoints. Append-only (kit audit-table.ts).
    name: '0009_audit_entries',
    async up({ sql }) {
      await sql(AUDIT_ENTRIES_DDL);
    },
  },
];
