import { API_KEY_DISPLAY_PREFIX_LENGTH, API_KEY_SCOPES, AppError, randomString, requireText, type ApiKeyScope } from '@propdesk/kit';

/** SPEC 4 and 13: a live key is pfx_live_ + 40 characters, a test key pfx_test_ + 40 (49 either way). */
export const API_KEY_PREFIXES = { live: 'pfx_live_', test: 'pfx_test_' } as const;
export const API_KEY_RANDOM_LENGTH = 40;
export { API_KEY_DISPLAY_PREFIX_LENGTH };

/** The scopes of SPEC 4 and 14, listed once in the kit. */
export const SCOPES = API_KEY_SCOPES;
export type Scope = ApiKeyScope;

export function newApiKeyToken(livemode: boolean): { token: string; prefix: string } {
  const token = API_KEY_PREFIXES[livemode ? 'live' : 'test'] + randomString(API_KEY_RANDOM_LENGTH);
  return { token, prefix: token.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH) };
}

/** Unknown scopes are refused; duplicates are dropped; order follows SCOPES so equal sets look equal. */
export function normalizeScopes(scopes: string[]): Scope[] {
  const wanted = new Set(scopes.map((s) => s.trim()));
  for (const scope of wanted) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new AppError('invalid_request', `unknown scope "${scope.slice(0, 50)}"; allowed: ${SCOPES.join(', ')}`, 'scopes');
    }
  }
  return SCOPES.filter((s) => wanted.has(s));
}

/** Exactly as sent (not trimmed); control characters and blank names refused. */
export function validApiKeyName(name: string): string {
  return requireText(name, 'name', { max: 100 });
}
