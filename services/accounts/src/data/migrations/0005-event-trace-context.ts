import type { Migration } from '@propdesk/kit';

/**
 * The outbox keeps the W3C trace context of the transaction that wrote each event (SPEC 16), so
 * the webhook deliveries an event causes join that request's trace. Null for events written
 * while tracing was off, and for every event written before this migration.
 */
export const eventTraceContext: Migration = {
  name: '0005-event-trace-context',
  async up({ sql }) {
    await sql(`ALTER TABLE events ADD COLUMN traceparent text NULL, ADD COLUMN tracestate text NULL`);
  },
};
