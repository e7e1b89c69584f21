import { AppError, FORWARDED_EVENT_TYPES, isUuid, parseEventData } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import { appendForwardedEvents, type ForwardedEvent } from '../data/outbox';
import type { AccountsDeps } from '../deps';

/** Events per AppendEvents call. */
export const MAX_APPENDED_EVENTS = 500;
const EVENT_ID = /^evt_[A-Za-z0-9_]{1,100}$/;

function isForwardedType(type: string): type is (typeof FORWARDED_EVENT_TYPES)[number] {
  return (FORWARDED_EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * AppendEvents: the events other services own (webhook_endpoint.disabled) join the outbox, so the
 * feed and the webhooks' fan-out carry them like the accounts service's own. Idempotent by event
 * id (a forwarder may send an event again after a failure). An account's events are this
 * service's alone: no other type is taken, and these carry no sequence.
 */
export async function appendEvents(deps: AccountsDeps, input: { events: accountsv1.Event[] }): Promise<number> {
  const bad = (message: string) => new AppError('invalid_request', message, 'events');
  if (input.events.length > MAX_APPENDED_EVENTS) throw bad(`at most ${MAX_APPENDED_EVENTS} events per call`);
  const events: ForwardedEvent[] = input.events.map((event) => {
    if (!EVENT_ID.test(event.id)) throw bad('every event needs an evt_ id');
    if (!isForwardedType(event.type)) throw bad(`${event.type} is not a type another service may append (${FORWARDED_EVENT_TYPES.join(', ')})`);
    if (!isUuid(event.organizationId)) throw bad('every event needs its organization_id (a UUID)');
    if (!event.createdAt) throw bad('every event needs its created_at');
    if (event.sequence !== undefined) throw bad('a forwarded event is about no account: it has no sequence');
    // Typed where it is built (the webhooks service), checked again here against its schema.
    const data = parseEventData(event.type, event.data ?? {}, 'events');
    return { id: event.id, type: event.type, organizationId: event.organizationId, livemode: event.livemode, createdAt: event.createdAt, data };
  });
  return appendForwardedEvents(deps.sequelize, events);
}
