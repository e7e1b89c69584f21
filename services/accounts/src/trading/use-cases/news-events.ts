import { AppError, cursorScope, effectTransaction, pageSize, recordAudit, requireText, type CursorCodec, type ScopeFields, type Sequelize } from '@propdesk/kit';
import { parseScope } from '../core-port';
import { deleteNewsEvent as deleteRow, insertNewsEvent, listNewsEvents as listRows, type NewsEvent } from '../data/news-events';
import { isNewsEventId, newNewsEventId, newsCurrencyList, newsTime } from '../domain/news-calendar';

/**
 * SPEC 15's news calendar: an organization's own, per mode (a test key sees and blacks out with
 * the test partition's only). A phase with news_blackout_minutes refuses orders on a symbol either
 * of whose currencies an event lists, from that many minutes before its time to that many after.
 */
export interface NewsDeps {
  sequelize: Sequelize;
  cursors: CursorCodec;
}

const notFound = () => new AppError('not_found', 'news event not found');

/** POST /v1/news_events {title, time, currencies}: one transaction with its audit entry. */
export async function createNewsEvent(deps: NewsDeps, req: ScopeFields & { title: string; time?: Date; currencies: string[] }): Promise<NewsEvent> {
  const scope = parseScope(req);
  const title = requireText(req.title, 'title', { max: 200 });
  const time = newsTime(req.time);
  const currencies = newsCurrencyList(req.currencies);
  return effectTransaction(deps.sequelize, async (tx) => {
    const event = await insertNewsEvent(deps.sequelize, tx, scope, { id: newNewsEventId(), title, time, currencies });
    await recordAudit(tx, {
      scope,
      action: 'news_event.create',
      target: { type: 'news_event', id: event.id },
      changes: { title: [null, event.title], time: [null, event.time.toISOString()], currencies: [null, event.currencies] },
    });
    return event;
  });
}

/** DELETE /v1/news_events/{id}: gone from the calendar (and from every blackout) at once. */
export async function deleteNewsEvent(deps: NewsDeps, req: ScopeFields & { id: string }): Promise<{ id: string }> {
  const scope = parseScope(req);
  if (!isNewsEventId(req.id)) throw notFound();
  return effectTransaction(deps.sequelize, async (tx) => {
    const event = await deleteRow(deps.sequelize, tx, scope, req.id);
    if (!event) throw notFound();
    await recordAudit(tx, {
      scope,
      action: 'news_event.delete',
      target: { type: 'news_event', id: event.id },
      changes: { title: [event.title, null], time: [event.time.toISOString(), null], currencies: [event.currencies, null] },
    });
    return { id: event.id };
  });
}

/**
 * GET /v1/news_events: the scope's events in time order, `from` and `to` bounding their times
 * (both included), keyset-paged; a cursor is bound to the organization, the mode and the filters.
 */
export async function listNewsEvents(
  deps: NewsDeps,
  req: ScopeFields & { from?: Date; to?: Date; pageSize?: number; pageToken?: string },
): Promise<{ events: NewsEvent[]; nextPageToken: string }> {
  const scope = parseScope(req);
  const from = req.from ?? null;
  const to = req.to ?? null;
  const cursor = `news_events:${cursorScope(scope)}:${from?.toISOString() ?? ''}:${to?.toISOString() ?? ''}`;
  const limit = pageSize(req.pageSize);
  let after: { time: Date; seq: number } | null = null;
  if (req.pageToken) {
    const position = deps.cursors.decode<{ t?: unknown; s?: unknown }>(cursor, req.pageToken);
    if (typeof position?.t !== 'number' || typeof position.s !== 'number' || !Number.isSafeInteger(position.s)) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = { time: new Date(position.t), seq: position.s };
  }
  const rows = await listRows(deps.sequelize, scope, { from, to, after, limit: limit + 1 });
  const events = rows.slice(0, limit);
  const last = events[events.length - 1];
  return { events, nextPageToken: rows.length > limit && last ? deps.cursors.encode(cursor, { t: last.time.getTime(), s: last.seq }) : '' };
}
