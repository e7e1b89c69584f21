import { AppError, cursorScope, pageSize, type ScopeFields } from '@propdesk/kit';
import { listAccountEvents, listEvents as listEventRows, type StoredEvent } from '../data/events';
import { isEventType } from '../domain/events';
import { accountNumber, position, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

export interface ListEventsInput extends ScopeFields {
  pageSize: number;
  pageToken: string;
  type: string;
  /** One account's events, in sequence order (SPEC 17). */
  account?: string;
  /** With `account`: its events numbered above this. */
  afterSequence?: string;
}

/**
 * The outbox of the organization's one mode, keyset-paged by position, optionally one type only;
 * or, with `account`, that account's events keyset-paged by their sequence numbers from
 * `afterSequence` on (SPEC 17: a receiver that saw number K asks for what follows K).
 */
export async function listEvents(deps: AccountsDeps, input: ListEventsInput): Promise<{ events: StoredEvent[]; nextPageToken: string }> {
  const tenant = tenantScope(input);
  const type = input.type ? input.type : null;
  if (type !== null && !isEventType(type)) throw new AppError('invalid_request', 'unknown event type', 'type');
  const account = input.account === undefined ? null : accountNumber(input.account, 'account');
  if (account === null && input.afterSequence !== undefined) {
    throw new AppError('invalid_request', 'after_sequence needs account: sequences are numbered per account', 'after_sequence');
  }
  const size = pageSize(input.pageSize);
  const scope = account === null ? `events:${cursorScope(tenant)}:${type ?? '*'}` : `account-events:${cursorScope(tenant)}:${account}:${type ?? '*'}`;
  let after = account === null ? 0 : position(input.afterSequence, 'after_sequence');
  if (input.pageToken) {
    const cursor = deps.cursors.decode<{ p?: unknown }>(scope, input.pageToken);
    if (typeof cursor?.p !== 'number' || !Number.isSafeInteger(cursor.p)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = cursor.p;
  }
  const rows =
    account === null
      ? await listEventRows(deps.sequelize, tenant, type, after, size + 1)
      : await listAccountEvents(deps.sequelize, tenant, { account, type, afterSequence: after }, size + 1);
  const events = rows.slice(0, size);
  const last = events[events.length - 1];
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, { p: account === null ? last.position : last.sequence }) : '';
  return { events, nextPageToken };
}
