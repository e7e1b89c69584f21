/** The event types of SPEC section 8 (one list for every service, kept in the kit). */
export { EVENT_TYPES, isEventType, type EventType } from '@propdesk/kit';
