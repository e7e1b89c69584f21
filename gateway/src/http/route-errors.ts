import { API_ERRORS, type ApiErrorCode } from '@propdesk/kit';
import { fieldFailureCode } from './validation';
import type { Route } from './route';

/**
 * Every API code a route can answer, from what the pipeline does (route.ts, authenticate.ts,
 * idempotency.ts, errors.ts) plus the codes its service calls declare. The OpenAPI document lists
 * exactly these per operation, and the end-to-end suites check every error they meet against it.
 */
export function routeErrorCodes(route: Route): Set<ApiErrorCode> {
  const codes = new Set<ApiErrorCode>(['internal_error', 'rate_limited']);
  const add = (...more: ApiErrorCode[]) => more.forEach((code) => codes.add(code));
  const { access } = route;
  if ('apiKey' in access) {
    // No or a malformed header, an unknown key, a plan not bought, the scope; the key store may be down.
    add('unauthorized', 'invalid_api_key', 'payment_required', 'unavailable');
    if (access.apiKey !== null) add('missing_scope');
    if (access.testMode) add('forbidden');
  } else if ('executor' in access) {
    add('unauthorized', 'invalid_session', 'unavailable');
  }
  if (route.method !== 'get') {
    // A body not declared JSON; the JSON body parser: malformed JSON, over 1 MB.
    add('unsupported_media_type', 'invalid_request', 'payload_too_large');
    // Idempotency-Key: its length, a reuse with another body, a first request still running.
    if ('apiKey' in access) add('invalid_request', 'idempotency_key_reused', 'conflict');
  }
  // A path that does not decode (broken percent-encoding) is refused before any field is read.
  if (Object.keys(route.params).length > 0) add('invalid_request');
  for (const field of [...Object.values(route.params), ...Object.values(route.query)]) add(fieldFailureCode(field));
  if (Object.keys(route.query).length > 0) add('invalid_request'); // a repeated parameter
  if (route.body !== undefined) add('invalid_request');
  add(...route.errors);
  return codes;
}

/** The same codes by HTTP status, each list in the order of the kit's table. */
export function routeErrorsByStatus(route: Route): Map<number, ApiErrorCode[]> {
  const codes = routeErrorCodes(route);
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of Object.keys(API_ERRORS) as ApiErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = API_ERRORS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}
