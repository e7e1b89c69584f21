import { AUDIT_TARGET_TYPES, listAuditLog, toRestAuditEntry, toRestTimelineItem, type AuditLister, type CallOpts } from '@propdesk/kit';
import { tenantOf } from '../auth/principal';
import type { Clients } from '../clients';
import { renderJson } from '../http/errors';
import { route } from '../http/route';
import { enumQuery, pageOf, pageQuery, patternQuery, timeQuery } from '../http/validation';
import { auditEntryPageSchema, timelinePageSchema } from '../mapping/audit';
import { page } from '../mapping/common';
import { accountPath } from './accounts';

/** What an object's or an actor's id is made of (numbers, names, uuids, prefixed ids, cli). */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]*$/;
const ID_FORM = 'letters, digits and _ . : @ -, starting with a letter or a digit';

/** The three services that own changes, each answering for its own audit entries. */
const auditServices = (clients: Clients, opts: CallOpts): AuditLister[] => [
  (request) => clients.auth.call.listAuditEntries(request, opts),
  (request) => clients.accounts.call.listAuditEntries(request, opts),
  (request) => clients.webhooks.call.listAuditEntries(request, opts),
];

export const auditRoutes = [
  route({
    method: 'get',
    path: '/v1/audit_events',
    operationId: 'listAuditEvents',
    summary: 'The audit log',
    description:
      "Every change made through the API, the panel or the CLI, newest first: who (an API key, a panel user, an operator), what (action resource.verb), to what (target), from where (request_id, ip) and the fields that changed. The key's own mode only. Filters combine.",
    tag: 'Audit',
    access: { apiKey: 'audit:read' },
    query: {
      action: patternQuery('action', 'only this action, e.g. account.archive', /^[a-z][a-z_]*\.[a-z][a-z_]*$/, 100, 'resource.verb in lower case, e.g. account.halt'),
      target_type: enumQuery(AUDIT_TARGET_TYPES, `target_type must be one of ${AUDIT_TARGET_TYPES.join(', ')}`, {
        emptyIsNone: true,
        description: 'only changes to this kind of object',
      }),
      target_id: patternQuery('target_id', "only changes to this object (an account's number, a program's name, an id)", ID_PATTERN, 200, ID_FORM),
      actor_id: patternQuery('actor_id', "only changes made by this actor (an API key's id, a user's id, cli)", ID_PATTERN, 320, ID_FORM),
      created_after: timeQuery('created_after', 'only entries created after this time'),
      created_before: timeQuery('created_before', 'only entries created before this time'),
      ...pageQuery,
    },
    responses: { 200: auditEntryPageSchema },
    errors: ['invalid_request', 'invalid_cursor'],
    async handler({ req, query, clients, opts }) {
      const listed = await listAuditLog(auditServices(clients, opts), {
        ...tenantOf(req),
        ...pageOf(query),
        query: {
          action: query.action ?? '',
          targetType: query.target_type ?? '',
          targetId: query.target_id ?? '',
          actorId: query.actor_id ?? '',
          createdAfter: query.created_after,
          createdBefore: query.created_before,
        },
      });
      return renderJson(200, page(listed.entries.map(toRestAuditEntry), listed.nextPageToken));
    },
  }),

  route({
    method: 'get',
    path: '/v1/accounts/{number}/timeline',
    operationId: 'getAccountTimeline',
    summary: "The account's history",
    description: 'Its events and the audit entries of changes to it, merged newest first.',
    tag: 'Audit',
    access: { apiKey: 'accounts:read' },
    params: accountPath,
    query: { ...pageQuery },
    responses: { 200: timelinePageSchema },
    errors: ['invalid_request', 'invalid_cursor', 'not_found'],
    async handler({ req, params, query, clients, opts }) {
      const response = await clients.accounts.call.listAccountTimeline({ ...tenantOf(req), number: params.number, ...pageOf(query) }, opts);
      return renderJson(200, page(response.items.map(toRestTimelineItem), response.nextPageToken));
    },
  }),
];
