import { modeName, type AuditChange } from '@propdesk/kit';
import type { ApiKeyRecord } from '../data/api-keys';

/**
 * The audit entries of API key changes (SPEC 14): target api_key, its id; the entry belongs to
 * the key's organization and mode. A key's token is never part of it (nor would the kit keep it).
 */
export function keyAudit(key: ApiKeyRecord, action: string, changes: Record<string, [unknown, unknown]>): AuditChange {
  return { scope: { organizationId: key.organizationId, livemode: key.livemode }, action, target: { type: 'api_key', id: key.id }, changes };
}

/** What a new key is, as an entry records it. */
export function keyFields(key: ApiKeyRecord): Record<string, unknown> {
  return {
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    mode: modeName(key.livemode),
    expires_at: key.expiresAt,
    read_per_min: key.readPerMin,
    write_per_min: key.writePerMin,
  };
}
