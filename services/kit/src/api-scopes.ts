/**
 * The scopes an API key may carry (SPEC 4; payouts:write and audit:read since SPEC 14): one list,
 * read by the gateway's scope checks, the auth service's key validation, the panel's key form and
 * the CLI's --scopes. Order is the order keys show them in.
 */
export const API_SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write', 'audit:read'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

/** SPEC 4: a key's prefix, shown in lists and as the audit log's label of the key, is the first 17 characters of its token. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 17;

export function apiKeyDisplayPrefix(token: string): string {
  return token.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH);
}
