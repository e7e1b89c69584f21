import type { Migration } from '@propdesk/kit';
import { authSchema } from './0001-auth';
import { keyExpiryAndLimits } from './0002-key-expiry-and-limits';
import { keyMode } from './0003-key-mode';
import { auditEntries } from './0004-audit-entries';
import { dropIdempotencyRecords } from './0005-drop-idempotency-records';

/** Applied in this order; append, never edit an applied one. */
export const migrations: Migration[] = [authSchema, keyExpiryAndLimits, keyMode, auditEntries, dropIdempotencyRecords];
