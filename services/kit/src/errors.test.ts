import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { API_ERRORS, AppError, fromServiceError, isUnavailableError, toItemError, toServiceError, type ApiErrorCode } from './errors';

/** A gRPC failure as grpc-js hands it to a client callback, with no API code in its trailers. */
function bareStatus(code: status, details: string): ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}

/** What a REST client sees for it: the API code, its HTTP status and the message. */
function seen(code: status, details = 'what the service said') {
  const err = fromServiceError(bareStatus(code, details));
  return { code: err.code, http: err.httpStatus, message: err.message };
}

const RETRY = 'a service is unavailable, try again';

describe('a gRPC status without an API code (grpc-gateway v2 HTTPStatusFromCode onto SPEC section 6)', () => {
  it('OK as a failure is internal_error 500', () => {
    expect(seen(status.OK)).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });

  it('CANCELLED (499 in grpc-gateway) is unavailable 503: retryable, and our table has no 499', () => {
    expect(seen(status.CANCELLED)).toEqual({ code: 'unavailable', http: 503, message: RETRY });
  });

  it('UNKNOWN is internal_error 500 and hides the details', () => {
    expect(seen(status.UNKNOWN, 'stack trace here')).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });

  it("INVALID_ARGUMENT is invalid_request 400 with the service's message", () => {
    expect(seen(status.INVALID_ARGUMENT, 'count must be an integer')).toEqual({ code: 'invalid_request', http: 400, message: 'count must be an integer' });
  });

  it('DEADLINE_EXCEEDED (504 in grpc-gateway) is unavailable 503, as SPEC section 6 says of a missed deadline', () => {
    expect(seen(status.DEADLINE_EXCEEDED)).toEqual({ code: 'unavailable', http: 503, message: RETRY });
  });

  it('NOT_FOUND is not_found 404', () => {
    expect(seen(status.NOT_FOUND)).toEqual({ code: 'not_found', http: 404, message: 'not found' });
  });

  it('ALREADY_EXISTS is conflict 409', () => {
    expect(seen(status.ALREADY_EXISTS)).toEqual({ code: 'conflict', http: 409, message: 'conflict' });
  });

  it('PERMISSION_DENIED is forbidden 403', () => {
    expect(seen(status.PERMISSION_DENIED)).toEqual({ code: 'forbidden', http: 403, message: 'forbidden' });
  });

  it('RESOURCE_EXHAUSTED is rate_limited 429', () => {
    expect(seen(status.RESOURCE_EXHAUSTED)).toEqual({ code: 'rate_limited', http: 429, message: 'rate limited' });
  });

  it("FAILED_PRECONDITION is invalid_request 400 (grpc-gateway v2: 400, not 412) with the service's message", () => {
    expect(seen(status.FAILED_PRECONDITION, 'the account is closed')).toEqual({ code: 'invalid_request', http: 400, message: 'the account is closed' });
    expect(seen(status.FAILED_PRECONDITION, '').message).toBe('the request cannot be carried out in the current state');
  });

  it('ABORTED is conflict 409', () => {
    expect(seen(status.ABORTED)).toEqual({ code: 'conflict', http: 409, message: 'conflict' });
  });

  it("OUT_OF_RANGE is invalid_request 400 with the service's message", () => {
    expect(seen(status.OUT_OF_RANGE, 'page past the end')).toEqual({ code: 'invalid_request', http: 400, message: 'page past the end' });
  });

  it('UNIMPLEMENTED (501 in grpc-gateway) is internal_error 500: a deployment fault, and our table has no 501', () => {
    expect(seen(status.UNIMPLEMENTED, 'The server does not implement the method /x.Y/Z')).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });

  it('INTERNAL is internal_error 500 and hides the details', () => {
    expect(seen(status.INTERNAL, 'relation "accounts" does not exist')).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });

  it('UNAVAILABLE is unavailable 503', () => {
    expect(seen(status.UNAVAILABLE, 'connect ECONNREFUSED 127.0.0.1:50052')).toEqual({ code: 'unavailable', http: 503, message: RETRY });
  });

  it('DATA_LOSS is internal_error 500', () => {
    expect(seen(status.DATA_LOSS)).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });

  it('UNAUTHENTICATED is unauthorized 401', () => {
    expect(seen(status.UNAUTHENTICATED)).toEqual({ code: 'unauthorized', http: 401, message: 'unauthorized' });
  });

  it('a status number outside the enum is internal_error 500', () => {
    expect(seen(99 as status)).toEqual({ code: 'internal_error', http: 500, message: 'internal error' });
  });
});

describe('an API code in the trailers', () => {
  it('wins over the status for every code of the table, param included', () => {
    for (const code of Object.keys(API_ERRORS) as ApiErrorCode[]) {
      const sent = toServiceError(new AppError(code, `message of ${code}`, 'field'));
      const err = fromServiceError(Object.assign(new Error(sent.details), sent));
      expect({ code: err.code, http: err.httpStatus, param: err.param }).toEqual({ code, http: API_ERRORS[code], param: 'field' });
    }
  });

  it('the eight codes that travel as FAILED_PRECONDITION keep their own HTTP status', () => {
    const travelling = (Object.keys(API_ERRORS) as ApiErrorCode[]).filter((code) => new AppError(code, '').grpcStatus === status.FAILED_PRECONDITION);
    expect(travelling.sort()).toEqual(
      ['account_archived', 'account_breached', 'account_passed', 'insufficient_credits', 'no_unassigned_accounts', 'order_rejected', 'payment_required', 'payout_not_allowed'].sort(),
    );
    for (const code of travelling) {
      const sent = toServiceError(new AppError(code, 'refused'));
      expect(fromServiceError(Object.assign(new Error(sent.details), sent)).httpStatus).toBe(API_ERRORS[code]);
    }
  });

  it('an unknown API code falls back on the status', () => {
    const metadata = new Metadata();
    metadata.set('x-api-code', 'teapot');
    const err = fromServiceError(Object.assign(new Error('x'), { code: status.NOT_FOUND, details: 'x', metadata }));
    expect(err.code).toBe('not_found');
  });

  it('internal_error never passes the service message on', () => {
    const sent = toServiceError(new AppError('internal_error', 'SELECT * FROM secrets'));
    expect(fromServiceError(Object.assign(new Error(sent.details), sent)).message).toBe('internal error');
  });
});

describe('a dependency that cannot be reached is unavailable (503), never internal_error', () => {
  const served = (err: unknown) => fromServiceError(Object.assign(new Error('x'), toServiceError(err)));

  it('sequelize connection errors, node-postgres "Connection terminated", socket codes and SQLSTATE class 08/57P0x', () => {
    const cases: unknown[] = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { name: 'SequelizeConnectionRefusedError' }),
      Object.assign(new Error('operation timeout'), { name: 'SequelizeConnectionAcquireTimeoutError' }),
      Object.assign(new Error('wrapped'), { name: 'SequelizeDatabaseError', parent: new Error('Connection terminated unexpectedly') }),
      Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('wrapped'), { original: Object.assign(new Error('x'), { code: '08006' }) }),
    ];
    for (const err of cases) {
      expect(isUnavailableError(err)).toBe(true);
      expect({ code: served(err).code, http: served(err).httpStatus }).toEqual({ code: 'unavailable', http: 503 });
      expect(toItemError(err).code).toBe('unavailable');
    }
  });

  it('a bug or a bad query stays internal_error', () => {
    for (const err of [new TypeError('x is undefined'), Object.assign(new Error('syntax error'), { name: 'SequelizeDatabaseError', parent: Object.assign(new Error('syntax'), { code: '42601' }) })]) {
      expect(isUnavailableError(err)).toBe(false);
      expect(served(err).code).toBe('internal_error');
    }
  });
});
