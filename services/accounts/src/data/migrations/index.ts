import type { Migration } from '@propdesk/kit';
import { coreSchema } from './0001-core';
import { provisioningAndLogins } from './0002-provisioning-and-logins';
import { idempotencyRecords } from './0003-idempotency-records';
import { programsAndPhases } from './0004-programs-and-phases';
import { eventTraceContext } from './0005-event-trace-context';
import { livemodePartition } from './0006-livemode';
import { operationsSchema } from './0007-operations';
import { testClocksSchema } from './0008-test-clocks';
import { eventSequence } from './0009-event-sequence';
import { auditEntries } from './0010-audit-entries';

/** The accounts core's schema, applied in this order (the trading module has its own list). */
export const coreMigrations: Migration[] = [
  coreSchema,
  provisioningAndLogins,
  idempotencyRecords,
  programsAndPhases,
  eventTraceContext,
  livemodePartition,
  operationsSchema,
  testClocksSchema,
  eventSequence,
  auditEntries,
];
