import { AppError, cursorScope, pageSize, type ScopeFields } from '@propdesk/kit';
import { listEvents as listEventRows, type StoredEvent } from '../data/events';
import { isEventType } from '../domain/events';
import { tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

/** The outbox of the organization's one mode, keyset-paged by position, optionally one type only. */
export async function listEvents(
  deps: AccountsDeps,
  input: ScopeFields & { pageSize: number; pageToken: string; type: string },
): Promise<{ events: StoredEvent[]; nextPageToken: string }> {
  const tenant = tenantScope(input);
  const type = input.type ? input.type : null;
  if (type !== null && !isEventType(type)) throw new AppError('invalid_request', 'unknown event type', 'type');
  const size = pageSize(input.pageSize);
  const scope = `events:${cursorScope(tenant)}:${type ?? '*'}`;
  let after = 0;
  if (input.pageToken) {
    const position = deps.cursors.decode<{ p?: unknown }>(scope, input.pageToken);
    if (typeof position?.p !== 'number' || !Number.isSafeInteger(position.p)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = position.p;
  }
  const rows = await listEventRows(deps.sequelize, tenant, type, after, size + 1);
  const events = rows.slice(0, size);
  const nextPageToken = rows.length > size ? deps.cursors.encode(scope, { p: events[events.length - 1].position }) : '';
  return { events, nextPageToken };
}
