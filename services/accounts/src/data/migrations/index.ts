import type { Migration } from '@propdesk/kit';
import { coreSchema } from './0001-core';
import { provisioningAndLogins } from './0002-provisioning-and-logins';
import { idempotencyRecords } from './0003-idempotency-records';
import { programsAndPhases } from './0004-programs-and-phases';
import { eventTraceContext } from './0005-event-trace-context';
import { livemodePartition } from './0006-livemode';
import { auditEntries } from './0007-audit-entries';

/** The accounts core's schema, applied in this order (the trading module has its own list). */
export const coreMigrations: Migration[] = [coreSchema, provisioningAndLogins, idempotencyRecords, programsAndPhases, eventTraceContext, livemodePartition, auditEntries];
