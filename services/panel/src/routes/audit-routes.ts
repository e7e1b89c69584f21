import { Router, type Request } from 'express';
import { AppError, AUDIT_TARGET_TYPES, isAuditTargetType, listAuditLog, toRestAuditEntry, toRestTimelineItem, type AuditLister } from '@propdesk/kit';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession } from '../http/session';
import { tenantOf } from '../http/tenant';
import { accountNumberParam, pageOf, pageParams, queryString } from '../validation';

/** The filters as the Audit log page labels them, for what its errors say. */
const FILTER_WORDS: Record<string, string> = { action: 'the action', target_type: 'the target type', target_id: 'the target id', actor_id: 'the actor id' };

/** A filter of the query, at most `max` characters; absent or empty: no filter. */
function filter(req: Request, name: string, max: number): string {
  const value = (queryString(req, name) ?? '').trim();
  if (value.length > max) throw new AppError('invalid_request', `${FILTER_WORDS[name] ?? name} is at most ${max} characters`, name);
  return value;
}

/** The kind of object filter, one of AUDIT_TARGET_TYPES (as GET /v1/audit_events); absent or empty: none. */
function targetTypeFilter(req: Request): string {
  const value = filter(req, 'target_type', 64);
  if (value !== '' && !isAuditTargetType(value)) throw new AppError('invalid_request', `${FILTER_WORDS.target_type} must be one of ${AUDIT_TARGET_TYPES.join(', ')}`, 'target_type');
  return value;
}

/** A time filter (ISO 8601); absent or empty: none. */
function timeFilter(req: Request, name: string): Date | undefined {
  const value = (queryString(req, name) ?? '').trim();
  if (value === '') return undefined;
  const time = new Date(value);
  if (value.length > 40 || Number.isNaN(time.getTime())) throw new AppError('invalid_request', `${name} must be an ISO 8601 time`, name);
  return time;
}

/**
 * The Audit log page (SPEC 14: owners and admins) reads the whole log as GET /v1/audit_events
 * does, the three services' entries merged; an account's timeline is the account page's, for
 * everyone who sees the account.
 */
export function auditRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);
  const services: AuditLister[] = [clients.auth.listAuditEntries, clients.accounts.listAuditEntries, clients.webhooks.listAuditEntries].map(
    (list): AuditLister => (request) => list(request),
  );

  router.get('/panel/api/audit', session, managers, async (req, res) => {
    const listed = await listAuditLog(services, {
      ...tenantOf(req),
      ...pageParams(req),
      query: {
        action: filter(req, 'action', 100),
        targetType: targetTypeFilter(req),
        targetId: filter(req, 'target_id', 200),
        actorId: filter(req, 'actor_id', 320),
        createdAfter: timeFilter(req, 'created_after'),
        createdBefore: timeFilter(req, 'created_before'),
      },
    });
    res.json(pageOf(listed.entries.map(toRestAuditEntry), listed.nextPageToken));
  });

  router.get('/panel/api/accounts/:number/timeline', session, async (req, res) => {
    const result = await clients.accounts.listAccountTimeline({ ...tenantOf(req), number: accountNumberParam(req), ...pageParams(req) });
    res.json(pageOf(result.items.map(toRestTimelineItem), result.nextPageToken));
  });

  return router;
}
