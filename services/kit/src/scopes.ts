/**
 * The scopes an API key may hold (SPEC 4; SPEC 14's payouts:write and audit:read), written once:
 * the auth service validates keys against this list, the gateway checks routes against it, the
 * panel's key form and the CLI's --scopes offer it, the OpenAPI document names it. Order is the
 * order keys show them in.
 */
export const API_KEY_SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write', 'payouts:write', 'audit:read'] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** SPEC 4: a key's prefix, shown in lists and as the audit log's label of the key, is the first 17 characters of its token. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 17;

export function apiKeyDisplayPrefix(token: string): string {
  return token.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH);
}
