import type { commonv1 } from '@propdesk/proto';
import type { Sequelize } from 'sequelize';
import type { ActorType } from './context';
import { pageSize, type CursorCodec } from './cursor';
import { AppError } from './errors';
import { isUuid } from './ids';
import { selectRows } from './sql';
import { cursorScope, livemodeOf, scopeBind, type TenantScope } from './tenant';

/**
 * Reading the audit log (SPEC 14). Each service that owns changes answers ListAuditEntries from
 * its own table with `auditEntriesPage`; a caller that shows the whole log (the gateway, the
 * panel) asks the three services for a page each and merges them with `mergeAuditPages`.
 *
 * Order: (created_at, id) descending, created_at to the microsecond, ids compared bytewise. A
 * cursor is one entry's position, sealed with the scope (organization, mode) and the query as
 * associated data, so it is refused (invalid_cursor) by any other organization, mode, filter or
 * list; the three services share CURSOR_SECRET, so the cursor of an entry of one service's page
 * continues the others' lists below that same position. Every page is an index range scan that
 * starts at the position: the millionth entry costs what the first does.
 */
export interface AuditQuery {
  action?: string;
  targetType?: string;
  targetId?: string;
  actorId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** An entry's position: created_at to the microsecond (ISO 8601 UTC) and its id. */
export interface AuditPosition {
  t: string;
  id: string;
}

export interface AuditRow {
  id: string;
  organization_id: string;
  livemode: boolean;
  created_at: Date;
  created_key: string;
  created_us: string;
  actor_type: ActorType;
  actor_id: string;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  ip: string | null;
  changes: Record<string, unknown>;
}

/** The columns an entry is read with, its position among them. */
export const AUDIT_COLUMNS = `id, organization_id, livemode, created_at, actor_type, actor_id, actor_label, action, target_type, target_id, request_id, ip, changes,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key,
  (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us`;

const FILTER_LIMITS = { action: 100, targetType: 64, targetId: 200, actorId: 320 } as const;

/** The query of a request; a field longer than any value it could match is invalid_request naming it. */
export function auditQueryOf(query: Partial<commonv1.AuditQuery> | undefined): AuditQuery {
  const parsed: AuditQuery = {};
  const params = { action: 'action', targetType: 'target_type', targetId: 'target_id', actorId: 'actor_id' } as const;
  for (const key of ['action', 'targetType', 'targetId', 'actorId'] as const) {
    const value = query?.[key] ?? '';
    if (value === '') continue;
    if (value.length > FILTER_LIMITS[key]) throw new AppError('invalid_request', `${params[key]} is at most ${FILTER_LIMITS[key]} characters`, params[key]);
    parsed[key] = value;
  }
  if (query?.createdAfter) parsed.createdAfter = query.createdAfter;
  if (query?.createdBefore) parsed.createdBefore = query.createdBefore;
  return parsed;
}

/** The associated data of a listing's cursors: the list, the scope and every filter. */
export function auditCursorScope(scope: TenantScope, query: AuditQuery): string {
  const filters = [query.action, query.targetType, query.targetId, query.actorId, query.createdAfter?.toISOString(), query.createdBefore?.toISOString()];
  return `audit_entries:${cursorScope(scope)}:${JSON.stringify(filters.map((f) => f ?? null))}`;
}

const POSITION_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor's position; anything but one this list sealed is invalid_cursor. */
export function decodeAuditPosition(cursors: CursorCodec, scope: string, token: string): AuditPosition {
  const position = cursors.decode<Partial<AuditPosition>>(scope, token);
  if (typeof position?.t !== 'string' || !POSITION_TIME.test(position.t) || typeof position.id !== 'string' || position.id.length > 64) {
    throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
  }
  return { t: position.t, id: position.id };
}

/**
 * Entries of the scope matching the query, newest first, strictly below `before` when given. An
 * entry for a target (target_type and target_id) is what the account timeline reads.
 */
export function selectAuditRows(db: Sequelize, scope: TenantScope, query: AuditQuery, before: AuditPosition | null, limit: number): Promise<AuditRow[]> {
  const conditions = ['organization_id = $org', 'livemode = $livemode'];
  const bind: Record<string, unknown> = { ...scopeBind(scope), limit };
  const equal = { action: 'action', targetType: 'target_type', targetId: 'target_id', actorId: 'actor_id' } as const;
  for (const key of ['action', 'targetType', 'targetId', 'actorId'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${equal[key]} = $${key}`);
    bind[key] = query[key];
  }
  if (query.createdAfter) {
    conditions.push('created_at > $createdAfter');
    bind.createdAfter = query.createdAfter;
  }
  if (query.createdBefore) {
    conditions.push('created_at < $createdBefore');
    bind.createdBefore = query.createdBefore;
  }
  if (before) {
    conditions.push('(created_at, id) < (CAST($t AS timestamptz), CAST($id AS text))');
    bind.t = before.t;
    bind.id = before.id;
  }
  return selectRows<AuditRow>(db, `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $limit`, bind);
}

export function toProtoAuditEntry(row: AuditRow): commonv1.AuditEntry {
  return {
    id: row.id,
    organizationId: row.organization_id,
    livemode: row.livemode,
    createdAt: row.created_at,
    createdAtUs: row.created_us,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    requestId: row.request_id ?? '',
    ip: row.ip ?? '',
    changes: row.changes,
  };
}

export interface AuditEntriesRequest {
  organizationId: string;
  mode: commonv1.Mode;
  query?: commonv1.AuditQuery;
  pageSize: number;
  pageToken: string;
}

export interface AuditEntriesPage {
  entries: commonv1.AuditEntry[];
  cursors: string[];
  nextPageToken: string;
}

/** ListAuditEntries of a service, answered from its own audit_entries. */
export async function auditEntriesPage(db: Sequelize, cursors: CursorCodec, request: AuditEntriesRequest): Promise<AuditEntriesPage> {
  if (!isUuid(request.organizationId)) throw new AppError('invalid_request', 'organization_id must be a UUID', 'organization_id');
  const scope: TenantScope = { organizationId: request.organizationId.toLowerCase(), livemode: livemodeOf(request.mode) };
  const query = auditQueryOf(request.query);
  const size = pageSize(request.pageSize);
  const cursorScopeText = auditCursorScope(scope, query);
  const before = request.pageToken ? decodeAuditPosition(cursors, cursorScopeText, request.pageToken) : null;
  const rows = await selectAuditRows(db, scope, query, before, size + 1);
  const page = rows.slice(0, size);
  const entryCursors = page.map((row) => cursors.encode(cursorScopeText, { t: row.created_key, id: row.id } satisfies AuditPosition));
  return {
    entries: page.map(toProtoAuditEntry),
    cursors: entryCursors,
    nextPageToken: rows.length > size ? entryCursors[entryCursors.length - 1] : '',
  };
}

/** Newer first: created_at to the microsecond, then the id bytewise (the services' order). */
export function compareNewestFirst(a: { createdAtUs: string; id: string }, b: { createdAtUs: string; id: string }): number {
  const ta = BigInt(a.createdAtUs);
  const tb = BigInt(b.createdAtUs);
  if (ta !== tb) return ta > tb ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id > b.id ? -1 : 1;
}

/**
 * One page of the whole log from each service's page of `limit` entries below the same cursor:
 * the `limit` newest of them, and the cursor of the last one kept when anything is left (an entry
 * not kept, or a service with more).
 */
export function mergeAuditPages(pages: AuditEntriesPage[], limit: number): { entries: commonv1.AuditEntry[]; nextPageToken: string } {
  const all = pages.flatMap((page) => page.entries.map((entry, i) => ({ entry, cursor: page.cursors[i] ?? '' })));
  all.sort((a, b) => compareNewestFirst(a.entry, b.entry));
  const kept = all.slice(0, limit);
  const more = all.length > limit || pages.some((page) => page.nextPageToken !== '');
  const last = kept[kept.length - 1];
  return { entries: kept.map((k) => k.entry), nextPageToken: more && last ? last.cursor : '' };
}

/** One service's ListAuditEntries. */
export type AuditLister = (request: AuditEntriesRequest) => Promise<AuditEntriesPage>;

/**
 * The whole log of an organization and mode: a page from each service that owns changes (auth,
 * accounts, webhooks) below the same cursor, merged (mergeAuditPages). What GET /v1/audit_events
 * and the panel's Audit log page answer.
 */
export async function listAuditLog(services: AuditLister[], request: AuditEntriesRequest): Promise<{ entries: commonv1.AuditEntry[]; nextPageToken: string }> {
  const size = pageSize(request.pageSize);
  const pages = await Promise.all(services.map((list) => list({ ...request, pageSize: size })));
  return mergeAuditPages(pages, size);
}
