import { compareNewestFirst, cursorScope, decodeAuditPosition, pageSize, selectAuditRows, toProtoAuditEntry, type AuditPosition, type ScopeFields } from '@propdesk/kit';
import type { commonv1 } from '@propdesk/proto';
import { findAccount } from '../data/accounts';
import { listAccountEventsNewestFirst, type StoredEvent } from '../data/events';
import { accountNotFound } from '../domain/account';
import { accountNumber, tenantScope } from '../domain/validation';
import type { AccountsDeps } from '../deps';

export type TimelineItem = { event: StoredEvent } | { auditEntry: commonv1.AuditEntry };

interface Placed {
  item: TimelineItem;
  createdAtUs: string;
  id: string;
  position: AuditPosition;
}

/**
 * GET /v1/accounts/{n}/timeline (SPEC 14): the account's events and the audit entries of changes
 * to it (target account, its number), merged newest first by (created_at, id) to the microsecond,
 * ids bytewise. Each page reads at most a page and one of each from an index range starting at
 * the cursor's position, so a deep page costs what the first does. Another organization's or
 * mode's account is not_found.
 */
export async function listAccountTimeline(
  deps: AccountsDeps,
  input: ScopeFields & { number: string; pageSize: number; pageToken: string },
): Promise<{ items: TimelineItem[]; nextPageToken: string }> {
  const scope = tenantScope(input);
  const number = accountNumber(input.number);
  const size = pageSize(input.pageSize);
  const listScope = `timeline:${cursorScope(scope)}:${number}`;
  const before = input.pageToken ? decodeAuditPosition(deps.cursors, listScope, input.pageToken) : null;
  if (!(await findAccount(deps.sequelize, scope, number))) throw accountNotFound();
  const [events, entries] = await Promise.all([
    listAccountEventsNewestFirst(deps.sequelize, scope, number, before, size + 1),
    selectAuditRows(deps.sequelize, scope, { targetType: 'account', targetId: String(number) }, before, size + 1),
  ]);
  const placed: Placed[] = [
    ...events.map((e) => ({ item: { event: e.event }, createdAtUs: e.createdUs, id: e.event.id, position: { t: e.createdKey, id: e.event.id } })),
    ...entries.map((row) => ({ item: { auditEntry: toProtoAuditEntry(row) }, createdAtUs: row.created_us, id: row.id, position: { t: row.created_key, id: row.id } })),
  ].sort(compareNewestFirst);
  const page = placed.slice(0, size);
  const nextPageToken = placed.length > size ? deps.cursors.encode(listScope, page[page.length - 1].position) : '';
  return { items: page.map((p) => p.item), nextPageToken };
}
