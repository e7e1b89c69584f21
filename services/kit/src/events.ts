import type { z } from 'zod';
import { AppError } from './errors';
import { EVENT_CATALOG } from './event-catalog';

export { EVENT_CATALOG };

/**
 * The event types (SPEC 8 and later sections): what the accounts service emits, what webhook
 * endpoints may subscribe to, and what the event feed filters on. The catalog's keys, in its
 * order: a type exists only with the schema of its data.
 */
export type EventType = keyof typeof EVENT_CATALOG;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as [EventType, ...EventType[]];

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, value);
}

/** The zod schema of a type's data. */
export type EventDataSchema<T extends EventType> = (typeof EVENT_CATALOG)[T]['schema'];

/** The data of an event of type T, as the code that emits it writes it. */
export type EventData<T extends EventType> = z.input<EventDataSchema<T>>;

/** A type with its data: what every event write takes, so that each type's data is checked against its own schema. */
export type TypedEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** An event of type T with its data; `typedEvent('account.resumed', { account })`. */
export function typedEvent<T extends EventType>(type: T, data: EventData<T>): { type: T; data: EventData<T> } {
  return { type, data };
}

/**
 * The data of an event built by SQL (one event per changed row, a set-based statement): a SQL
 * expression for every field of the type, so the statement's jsonb has exactly the schema's fields.
 */
export type EventDataSql<T extends EventType> = { [K in Exclude<keyof EventData<T>, 'test'>]-?: string };

/** jsonb_build_object over EventDataSql's expressions, in the order given. */
export function eventDataSql<T extends EventType>(fields: EventDataSql<T>): string {
  const pairs = Object.entries(fields as Record<string, string>).map(([name, expression]) => `'${name}', ${expression}`);
  return `jsonb_build_object(${pairs.join(', ')})`;
}

/**
 * An event's data checked against its type's schema at run time: for data that reaches a service
 * untyped (another service's event over gRPC). invalid_request naming `param` otherwise.
 */
export function parseEventData<T extends EventType>(type: T, data: unknown, param: string): EventData<T> {
  const parsed = EVENT_CATALOG[type].schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new AppError('invalid_request', `the data of ${type} does not match its schema${where}: ${issue?.message ?? 'invalid'}`, param);
  }
  return parsed.data as EventData<T>;
}

/**
 * The data of a sample delivery (POST /v1/webhooks/{id}/test): shaped like the type's data, but
 * with `test: true`, account 0 and its ids null (the catalog's `test` field says so).
 */
export type SampleEventData<T extends EventType> = WithNullIds<EventData<T>> & { test: true };

type WithNullIds<D> = {
  [K in keyof D]: K extends 'id' | `${string}_id` ? D[K] | null : D[K] extends Record<string, unknown> ? WithNullIds<D[K]> : D[K];
};

/**
 * The types another service owns and hands to the accounts service's outbox (AppendEvents), so the
 * feed and the webhooks' fan-out carry them: the accounts service appends these and no other.
 */
export const FORWARDED_EVENT_TYPES = ['webhook_endpoint.disabled'] as const satisfies readonly EventType[];
