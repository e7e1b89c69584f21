import type { Transaction } from './db';
import type { TenantScope } from './tenant';

/**
 * One change for the audit log (SPEC 14): written by the service that owns the change, in the
 * change's own transaction, so a change that rolls back leaves no entry.
 */
export interface AuditChange {
  /** The organization and mode the change belongs to. */
  scope: TenantScope;
  /** `resource.verb`: 'account.halt', 'payout.approve', 'api_key.revoke'. */
  action: string;
  /** The changed object: its resource (`account`) and its id as text (`1000001`). */
  target: { type: string; id: string };
  /** field -> [before, after]; fields left out did not change. */
  changes?: Record<string, [unknown, unknown]>;
}

/**
 * Appends the audit entry of a change inside `tx`. The audit log implements it (actor, request id
 * and IP from the request context, secrets stripped, one row in the service's audit_entries);
 * until then every call site is in place and this records nothing.
 */
export async function recordAudit(tx: Transaction, change: AuditChange): Promise<void> {
  // The audit log implements this; the stub records nothing.
  return;
}
