/**
 * What the API answered when it refused a request: its HTTP status and the error envelope of the
 * API (`{"error": {"code", "message", "param"?}}`), with the request id the gateway gave the
 * answer (`X-Request-Id`), to quote to support. Never carries the API key.
 */
export class PropDeskError extends Error {
  override readonly name: string = 'PropDeskError';
  /** The HTTP status; 0 when no answer came (PropDeskConnectionError). */
  readonly status: number;
  /** The API's error code: `invalid_request`, `not_found`, `rate_limited`, ... */
  readonly code: string;
  /** The parameter at fault, when the API named one (`invalid_request`). */
  readonly param: string | undefined;
  /** The answer's X-Request-Id; null when no answer came. */
  readonly requestId: string | null;
  /** Seconds the API asked to wait (429's Retry-After), when it said. */
  readonly retryAfter: number | undefined;

  constructor(init: { status: number; code: string; message: string; param?: string; requestId: string | null; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/** No answer came: the connection failed or the attempt timed out, after the retries allowed. */
export class PropDeskConnectionError extends PropDeskError {
  override readonly name: string = 'PropDeskConnectionError';

  constructor(message: string, cause: unknown, code: 'connection_failed' | 'timeout' = 'connection_failed') {
    super({ status: 0, code, message, requestId: null, cause });
  }
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; param?: unknown };
}

/** The error of an answer that is not a success: the API's envelope, or what came instead. */
export function errorOfAnswer(status: number, body: unknown, requestId: string | null, retryAfter: number | undefined): PropDeskError {
  const envelope = (typeof body === 'object' && body !== null ? (body as ErrorEnvelope).error : undefined) ?? {};
  const code = typeof envelope.code === 'string' ? envelope.code : 'unexpected_response';
  const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status} without the API's error envelope`;
  const param = typeof envelope.param === 'string' ? envelope.param : undefined;
  return new PropDeskError({ status, code, message, param, requestId, retryAfter });
}
