/**
 * The scopes an API key may hold (SPEC 4, and SPEC 14's payouts:write), written once: the auth
 * service validates keys against this list, the gateway checks routes against it, the panel's key
 * form and the CLI's --scopes offer it, the OpenAPI document names it.
 */
export const API_KEY_SCOPES = ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write', 'payouts:write'] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}
