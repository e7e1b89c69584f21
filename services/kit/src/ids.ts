import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID in its canonical text form (any case). Ids are checked before they reach SQL, so a
 * malformed one reads as "not found" (or a named invalid_request), never as a failed uuid cast.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * A new event id (SPEC 8): `evt_` and 128 random bits as 32 lowercase hex characters. Readers
 * treat ids as opaque, so ids stored in the earlier `evt_` + 24 alphanumerics form stay valid.
 */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/**
 * newEventId made by PostgreSQL, for events a set-based statement writes (one per changed row):
 * the same form, `evt_` and 128 bits as 32 lowercase hex, hashed from two gen_random_uuid() values
 * (244 bits of the server's strong random source).
 */
export const EVENT_ID_SQL = `'evt_' || encode(substring(sha256((gen_random_uuid()::text || gen_random_uuid()::text)::bytea) from 1 for 16), 'hex')`;
