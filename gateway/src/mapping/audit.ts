import { restAuditEntrySchema } from '@propdesk/kit';
import { z } from '../http/zod';
import { eventSchema } from './accounts';
import { pageSchema } from './common';

export const auditEntrySchema = restAuditEntrySchema.openapi('AuditEntry');
export const auditEntryPageSchema = pageSchema(auditEntrySchema).openapi('AuditEntryPage');

/** A timeline item: an event, or an audit entry, told apart by `kind` (the kit's toRestTimelineItem). */
const timelineItemSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('event'), event: eventSchema }).strict(),
    z.object({ kind: z.literal('audit_entry'), audit_entry: auditEntrySchema }).strict(),
  ])
  .openapi('TimelineItem');
export const timelinePageSchema = pageSchema(timelineItemSchema).openapi('TimelinePage');

