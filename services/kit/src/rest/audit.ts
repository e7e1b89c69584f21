import type { accountsv1, commonv1 } from '@propdesk/proto';
import { z } from 'zod';
import { ACTOR_TYPES, type ActorType } from '../context';
import { AppError } from '../errors';
import { toRestEvent, type RestEvent } from './people';
import { isoTime, livemodeSchema } from './common';

/** An audit entry in its REST shape (SPEC 14), written once for the gateway and the panel. */
export const restAuditEntrySchema = z
  .object({
    id: z.string().regex(/^aud_/),
    created_at: z.string().datetime(),
    actor: z
      .object({
        type: z.enum(ACTOR_TYPES),
        id: z.string().describe("the API key's id, the user's id, or cli / system"),
        label: z.string().describe("the key's prefix, the user's email, or cli / system"),
      })
      .strict(),
    action: z.string().describe('resource.verb, e.g. account.archive, api_key.revoke'),
    target: z.object({ type: z.string(), id: z.string().describe("the object's id as text (an account's number, a program's name)") }).strict(),
    request_id: z.string().nullable().describe('the X-Request-Id of the request that made the change'),
    ip: z.string().nullable().describe('the client address of that request; null for the CLI'),
    livemode: livemodeSchema,
    changes: z
      .record(z.string(), z.array(z.unknown()).min(2).max(2))
      .describe('field -> [before, after] of what changed (never a secret)'),
  })
  .strict();
export type RestAuditEntry = z.output<typeof restAuditEntrySchema>;

export function toRestAuditEntry(entry: commonv1.AuditEntry): RestAuditEntry {
  const actor = entry.actor ?? { type: 'operator', id: 'system', label: 'system' };
  return {
    id: entry.id,
    created_at: isoTime(entry.createdAt),
    actor: { type: (ACTOR_TYPES as readonly string[]).includes(actor.type) ? (actor.type as ActorType) : 'operator', id: actor.id, label: actor.label },
    action: entry.action,
    target: { type: entry.targetType, id: entry.targetId },
    request_id: entry.requestId === '' ? null : entry.requestId,
    ip: entry.ip === '' ? null : entry.ip,
    livemode: entry.livemode,
    changes: (entry.changes as Record<string, [unknown, unknown]> | undefined) ?? {},
  };
}

/** An account's timeline item (SPEC 14): an event or an audit entry, told apart by `kind`. */
export type RestTimelineItem = { kind: 'event'; event: RestEvent } | { kind: 'audit_entry'; audit_entry: RestAuditEntry };

export function toRestTimelineItem(item: accountsv1.TimelineItem): RestTimelineItem {
  if (item.event) return { kind: 'event', event: toRestEvent(item.event) };
  if (item.auditEntry) return { kind: 'audit_entry', audit_entry: toRestAuditEntry(item.auditEntry) };
  throw new AppError('internal_error', 'the accounts service answered an empty timeline item');
}
