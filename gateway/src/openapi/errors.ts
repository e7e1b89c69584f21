import { API_ERRORS, type ApiErrorCode } from '@propdesk/kit';
import { z } from '../http/zod';

/** What each code of the kit's table means to a client: the text of an error response. */
export const ERROR_MEANINGS: Record<ApiErrorCode, string> = {
  invalid_request: 'a parameter, the body or a header is not valid (param names it)',
  invalid_cursor: 'the cursor is not one this list handed out',
  unauthorized: 'no Authorization: Bearer header',
  invalid_api_key: 'the API key is unknown, malformed, revoked or expired',
  invalid_credentials: 'wrong account number or password',
  invalid_session: 'the executor session is unknown or revoked',
  payment_required: "the organization's plan is not bought (live keys only: test mode is free)",
  insufficient_credits: 'not enough account credits',
  missing_scope: 'the API key lacks the scope (the message names it)',
  forbidden: 'the role may not do this',
  not_found: "no such object in this organization (also another organization's), or no such route",
  method_not_allowed: 'the path exists but not with this method (OPTIONS included: no CORS); the Allow header lists its methods',
  request_timeout: 'the request was not received in time',
  conflict: 'the object is not in a state that allows this',
  account_archived: 'the account is archived',
  account_breached: 'the account is breached',
  account_passed: 'the account has passed its evaluation',
  no_unassigned_accounts: 'no active unassigned account is left',
  payout_not_allowed: 'the payout is refused; the message says why (no profit, above what is left of it after pending payouts, consistency, trading days, KYC, not an active funded account, a balance that can no longer pay)',
  idempotency_key_reused: 'the Idempotency-Key was used with another request',
  payload_too_large: 'the body is larger than 1 MB',
  unsupported_media_type: 'a request body that is not declared Content-Type: application/json (UTF-8)',
  order_rejected: 'a pre-order rule refused the order (the message names it)',
  rate_limited: 'over the limit; retry after Retry-After seconds',
  headers_too_large: 'the request line and headers are larger than the server reads (64 KB)',
  internal_error: 'an unexpected failure',
  unavailable: 'a service is down or missed its deadline; retry',
};

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());

/** The component name of a code's envelope schema: InvalidRequestError, InternalError, ... */
export const errorComponentName = (code: ApiErrorCode): string => `${pascal(code)}${code.endsWith('_error') ? '' : 'Error'}`;

/** The error envelope of SPEC section 6 with one code: a component each (InvalidRequestError, ...). */
const ERROR_SCHEMAS = Object.fromEntries(
  (Object.keys(API_ERRORS) as ApiErrorCode[]).map((code) => [
    code,
    z
      .object({
        error: z
          .object({
            code: z.literal(code),
            message: z.string(),
            param: z.string().optional().openapi({ description: 'the parameter, field or header at fault' }),
          })
          .strict(),
      })
      .strict()
      .openapi(errorComponentName(code)),
  ]),
) as unknown as Record<ApiErrorCode, z.ZodTypeAny>;

/** A code's envelope schema, to register as a component of its own. */
export function errorSchemaOf(code: ApiErrorCode): z.ZodTypeAny {
  return ERROR_SCHEMAS[code];
}

/** The envelope whose code is one of the given ones. */
export function errorBodySchema(codes: readonly ApiErrorCode[]): z.ZodTypeAny {
  const [first, second, ...rest] = codes.map((code) => ERROR_SCHEMAS[code]);
  if (first === undefined) throw new Error('an error answer needs at least one code');
  return second === undefined ? first : z.union([first, second, ...rest]);
}

/**
 * The envelope with any code of the kit's table: the `default` answer of every operation. It
 * covers what no operation lists: a path that does not exist (404), a method a path does not have
 * (405), and what the HTTP server answers before any route (408, 431).
 */
export const anyErrorSchema = z
  .object({
    error: z
      .object({
        code: z.enum(Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]]),
        message: z.string(),
        param: z.string().optional().openapi({ description: 'the parameter, field or header at fault' }),
      })
      .strict(),
  })
  .strict()
  .openapi('Error');
