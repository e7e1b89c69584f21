/** The event types of SPEC section 8; an endpoint may subscribe to these only (the kit's one list). */
export { EVENT_TYPES, isEventType, type EventType } from '@propdesk/kit';
