import { Metadata, status, type ServiceError } from '@grpc/grpc-js';

/** Every API error code of SPEC section 6 and the HTTP status it maps to. */
export const API_ERRORS = {
  invalid_request: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  invalid_session: 401,
  payment_required: 402,
  insufficient_credits: 402,
  missing_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  account_archived: 409,
  account_breached: 409,
  account_passed: 409,
  no_unassigned_accounts: 409,
  payout_not_allowed: 409,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  order_rejected: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

const GRPC_STATUS_OF: Record<ApiErrorCode, status> = {
  invalid_request: status.INVALID_ARGUMENT,
  invalid_cursor: status.INVALID_ARGUMENT,
  unauthorized: status.UNAUTHENTICATED,
  invalid_api_key: status.UNAUTHENTICATED,
  invalid_credentials: status.UNAUTHENTICATED,
  invalid_session: status.UNAUTHENTICATED,
  payment_required: status.FAILED_PRECONDITION,
  insufficient_credits: status.FAILED_PRECONDITION,
  missing_scope: status.PERMISSION_DENIED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  // HTTP-only codes (the gateway's pipeline and HTTP server); no service raises them.
  method_not_allowed: status.UNIMPLEMENTED,
  request_timeout: status.DEADLINE_EXCEEDED,
  conflict: status.ABORTED,
  account_archived: status.FAILED_PRECONDITION,
  account_breached: status.FAILED_PRECONDITION,
  account_passed: status.FAILED_PRECONDITION,
  no_unassigned_accounts: status.FAILED_PRECONDITION,
  payout_not_allowed: status.FAILED_PRECONDITION,
  idempotency_key_reused: status.ALREADY_EXISTS,
  payload_too_large: status.INVALID_ARGUMENT,
  unsupported_media_type: status.INVALID_ARGUMENT,
  order_rejected: status.FAILED_PRECONDITION,
  rate_limited: status.RESOURCE_EXHAUSTED,
  headers_too_large: status.INVALID_ARGUMENT,
  internal_error: status.INTERNAL,
  unavailable: status.UNAVAILABLE,
};

export const API_CODE_METADATA = 'x-api-code';
export const API_PARAM_METADATA = 'x-api-param';

export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.prototype.hasOwnProperty.call(API_ERRORS, code);
}

/** The one error type services throw; it carries the API code across gRPC. */
export class AppError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return API_ERRORS[this.code];
  }

  get grpcStatus(): status {
    return GRPC_STATUS_OF[this.code];
  }

  toJSON(): { error: { code: string; message: string; param?: string } } {
    return { error: { code: this.code, message: this.message, ...(this.param ? { param: this.param } : {}) } };
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);

/** Node's socket failures: the peer is gone or cannot be reached. */
const UNREACHABLE_SYSCALL_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * PostgreSQL SQLSTATEs that say "the database is not there right now" rather than "this query is
 * wrong": class 08 (connection exception), 57P01-57P03 (shutting down, crashed, starting up),
 * 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** node-postgres' own words for a connection that went away mid-query or could not be made. */
const UNREACHABLE_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
  'Connection refused',
];

/**
 * True when `err` (or what it wraps: sequelize's `parent`/`original`, an Error's `cause`) says the
 * database or another dependency cannot be reached, as opposed to a bug: sequelize's connection
 * errors (refused, timed out, pool acquire timeout...), node-postgres' "Connection terminated",
 * socket errors, and PostgreSQL's connection-class SQLSTATEs. Such a failure is 503 `unavailable`
 * (retry), never 500.
 */
export function isUnavailableError(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; parent?: unknown; original?: unknown; cause?: unknown };
  if (typeof e.name === 'string' && /^Sequelize(Connection\w*|HostNotFound|HostNotReachable|InvalidConnection)Error$/.test(e.name)) return true;
  if (typeof e.code === 'string' && (UNREACHABLE_SYSCALL_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))) return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.some((m) => (e.message as string).includes(m))) return true;
  return [e.parent, e.original, e.cause].some((inner) => inner !== err && isUnavailableError(inner, depth + 1));
}

/** Server side: turn anything thrown by a handler into a gRPC status with the API code in trailers. */
export function toServiceError(err: unknown): Partial<ServiceError> & { code: status; details: string; metadata: Metadata } {
  const metadata = new Metadata();
  if (!(err instanceof AppError) && isUnavailableError(err)) {
    metadata.set(API_CODE_METADATA, 'unavailable');
    return { code: status.UNAVAILABLE, details: 'a service is unavailable, try again', metadata };
  }
  if (err instanceof AppError) {
    metadata.set(API_CODE_METADATA, err.code);
    if (err.param) metadata.set(API_PARAM_METADATA, err.param);
    return { code: err.grpcStatus, details: err.message, metadata };
  }
  metadata.set(API_CODE_METADATA, 'internal_error');
  return { code: status.INTERNAL, details: 'internal error', metadata };
}

function isServiceError(err: unknown): err is ServiceError {
  return typeof err === 'object' && err !== null && 'code' in err && typeof (err as { code: unknown }).code === 'number' && 'metadata' in err;
}

/**
 * How a gRPC status without an API code in its trailers reaches REST. It follows grpc-gateway
 * v2's HTTPStatusFromCode (runtime/errors.go) and lands on the code of SPEC section 6 with that
 * HTTP status; where grpc-gateway answers a status our table has no code for, the nearest one:
 *   CANCELLED (499 there): the call was given up before an answer, as far as the client can
 *     tell a transient failure: unavailable (503), retry.
 *   DEADLINE_EXCEEDED (504 there): SPEC section 6 says a missed deadline is unavailable (503).
 *   FAILED_PRECONDITION (400 there, deliberately not 412): invalid_request (400). Seven API codes
 *     travel with this status (payment_required, insufficient_credits, account_archived,
 *     account_breached, account_passed, no_unassigned_accounts, order_rejected); they always
 *     carry their API code, so only a status without one lands here.
 *   UNIMPLEMENTED (501 there): the gateway called an RPC the service lacks, a deployment fault
 *     rather than something a client can change: internal_error (500).
 * `details` is the service's message: passed on only for client errors whose message names the
 * problem; anything else gets a fixed message, so no internal text leaks.
 * A Record over every status: a status left out is a compile error.
 */
const FALLBACK_OF_STATUS: Record<status, { code: ApiErrorCode; message: string; passDetails?: true }> = {
  [status.OK]: { code: 'internal_error', message: 'internal error' },
  [status.CANCELLED]: { code: 'unavailable', message: 'a service is unavailable, try again' },
  [status.UNKNOWN]: { code: 'internal_error', message: 'internal error' },
  [status.INVALID_ARGUMENT]: { code: 'invalid_request', message: 'invalid request', passDetails: true },
  [status.DEADLINE_EXCEEDED]: { code: 'unavailable', message: 'a service is unavailable, try again' },
  [status.NOT_FOUND]: { code: 'not_found', message: 'not found' },
  [status.ALREADY_EXISTS]: { code: 'conflict', message: 'conflict' },
  [status.PERMISSION_DENIED]: { code: 'forbidden', message: 'forbidden' },
  [status.RESOURCE_EXHAUSTED]: { code: 'rate_limited', message: 'rate limited' },
  [status.FAILED_PRECONDITION]: { code: 'invalid_request', message: 'the request cannot be carried out in the current state', passDetails: true },
  [status.ABORTED]: { code: 'conflict', message: 'conflict' },
  [status.OUT_OF_RANGE]: { code: 'invalid_request', message: 'invalid request', passDetails: true },
  [status.UNIMPLEMENTED]: { code: 'internal_error', message: 'internal error' },
  [status.INTERNAL]: { code: 'internal_error', message: 'internal error' },
  [status.UNAVAILABLE]: { code: 'unavailable', message: 'a service is unavailable, try again' },
  [status.DATA_LOSS]: { code: 'internal_error', message: 'internal error' },
  [status.UNAUTHENTICATED]: { code: 'unauthorized', message: 'unauthorized' },
};

/**
 * Client side: rebuild the AppError a service raised. Without an API code, fall back on the
 * gRPC status (FALLBACK_OF_STATUS).
 */
export function fromServiceError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (!isServiceError(err)) return new AppError('internal_error', 'internal error');
  const apiCode = err.metadata?.get(API_CODE_METADATA)[0];
  const param = err.metadata?.get(API_PARAM_METADATA)[0];
  if (typeof apiCode === 'string' && isApiErrorCode(apiCode)) {
    const message = apiCode === 'internal_error' ? 'internal error' : err.details;
    return new AppError(apiCode, message, typeof param === 'string' ? param : undefined);
  }
  const fallback = (FALLBACK_OF_STATUS as Partial<Record<number, (typeof FALLBACK_OF_STATUS)[status]>>)[err.code] ?? FALLBACK_OF_STATUS[status.UNKNOWN];
  return new AppError(fallback.code, (fallback.passDetails && err.details) || fallback.message);
}

/**
 * An error carried inside a message rather than as the call's status: one request of a batch
 * whose other requests succeeded (e.g. accounts.v1.ItemError). Anything but an AppError becomes
 * internal_error, exactly as toServiceError does for a whole call.
 */
export interface ItemErrorFields {
  code: string;
  message: string;
  param: string;
}

export function toItemError(err: unknown): ItemErrorFields {
  if (err instanceof AppError) return { code: err.code, message: err.message, param: err.param ?? '' };
  if (isUnavailableError(err)) return { code: 'unavailable', message: 'a service is unavailable, try again', param: '' };
  return { code: 'internal_error', message: 'internal error', param: '' };
}

export function fromItemError(item: ItemErrorFields): AppError {
  if (!isApiErrorCode(item.code) || item.code === 'internal_error') return new AppError('internal_error', 'internal error');
  return new AppError(item.code, item.message, item.param || undefined);
}
