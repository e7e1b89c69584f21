import { AsyncLocalStorage } from 'node:async_hooks';
import type { Metadata } from '@grpc/grpc-js';
import type { Sequelize, Transaction } from 'sequelize';
import { AppError, isApiErrorCode, type ApiErrorCode } from './errors';
import type { Logger } from './logger';
import { idempotentRequestOf, type IdempotentRequest } from './idempotency-metadata';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from './idempotency-records';
import { execute, selectOne, selectRows, type Statement } from './sql';
import { pipelinedTransaction, type CommitStatementError } from './transaction';

/**
 * Exactly-once writes (SPEC 7, Idempotency-Key), decided in the service that owns the effect.
 *
 * The gateway forwards the client's Idempotency-Key, its scope (organization + API key) and a
 * fingerprint of the request (method, path, canonical body) in gRPC metadata
 * (idempotency-metadata.ts). The owning service records the key in ITS database, in the SAME
 * transaction as the effect, together with the answer:
 *
 *   handler:   return exactlyOnce(ctx, db, XResponse, (r) => toProto(r), () => useCase(deps, req));
 *   use case:  return effectTransaction(db, async (tx) => { ...the change...; return answer; });
 *
 * - The effect transaction ends by inserting the record with the answer (sent with its COMMIT,
 *   kit transaction.ts): what it returns is the answer, its protobuf bytes stored in the same commit as
 *   the change, so a retry after any crash (gateway, service, network) gets exactly the first
 *   answer. The use case returns that value unchanged (a mismatch is logged as a bug).
 * - A concurrent duplicate waits on the unique index until the first commits, then rolls its own
 *   attempt back and replays the first answer; if the first rolled back, the duplicate commits.
 * - A retry after the commit is answered from the record by the effect transaction's first
 *   statement, a read sent with its BEGIN and the effect's first statement (so a first request,
 *   the common case, pays no round trip for it): the effect is abandoned and rolled back.
 * - A refusal that also changed something (order.rejected is an event) throws
 *   `new CommittedRefusal(appError)` inside the effect: the change and the recorded error commit
 *   together, then the error is thrown.
 * - A plain refusal (an AppError worth replaying: 4xx) is recorded after the rolled-back attempt:
 *   nothing happened, so recording it late is safe; the retry answers the same error.
 * - 5xx and unexpected errors record nothing: nothing committed, the retry runs again.
 * - Same key, other request (fingerprint) -> 409 idempotency_key_reused.
 *
 * Each service has an `idempotency_records` table (IDEMPOTENCY_RECORDS_DDL in a migration) and
 * deletes records past the key lifetime (idempotency-records.ts).
 */

/** A refusal whose side effects (an event, a flag) commit with the recorded error. */
export class CommittedRefusal extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
    this.name = 'CommittedRefusal';
  }
}

/** The codec of a response message, as ts-proto generates it. */
export interface ResponseCodec<P> {
  encode(message: P): { finish(): Uint8Array };
  decode(input: Uint8Array): P;
}

interface PendingWrite {
  request: IdempotentRequest;
  operation: string;
  encode(answer: unknown): Uint8Array;
  /** The answer the effect transaction recorded and its response message, made once. */
  answered?: { answer: unknown; response: unknown };
  /** Set once an effect transaction took the record. */
  recorded?: Uint8Array | 'refusal';
  /**
   * Set when the call has answered: a timer or loop first started inside the call carries this
   * store along (AsyncLocalStorage), and must not record into a call that is over.
   */
  ended?: boolean;
}

const pendingWrites = new AsyncLocalStorage<PendingWrite | undefined>();

/**
 * Thrown by an effect transaction when the key already has an answer: a duplicate committed
 * first, or the request is a retry of one that did. The handler replays `stored` when it was
 * read, else reads it.
 */
class AlreadyRecorded extends Error {
  constructor(readonly stored?: StoredRecord) {
    super('this Idempotency-Key already has an answer');
  }
}

const LIFETIME_SECS = IDEMPOTENCY_KEY_LIFETIME_MS / 1000;

type Outcome = { response: Uint8Array } | { error: AppError };

/** A key's record, with recordValues' values. */
const INSERT_RECORD = `INSERT INTO idempotency_records (scope, idempotency_key, fingerprint, operation, response, error_code, error_message, error_param)
     VALUES ($scope, $key, $fingerprint, $operation, $response, CAST($code AS text), CAST($message AS text), CAST($param AS text))`;

function recordValues(write: PendingWrite, outcome: Outcome) {
  const error = 'error' in outcome ? outcome.error : undefined;
  return {
    scope: write.request.scope,
    key: write.request.key,
    fingerprint: write.request.fingerprint,
    operation: write.operation,
    response: 'response' in outcome ? Buffer.from(outcome.response.buffer, outcome.response.byteOffset, outcome.response.byteLength) : null,
    code: error?.code ?? null,
    message: error?.message ?? null,
    param: error?.param ?? null,
  };
}

/**
 * Writes the record for (scope, key) with the answer, outside an effect transaction (a refusal
 * after its rolled-back attempt, a write without an effect transaction): inserted, or an expired
 * one taken over. While another transaction holds the same key uncommitted this waits on the
 * unique index; false when that one committed (or a live record exists): the caller replays it.
 */
async function writeRecord(db: Sequelize, write: PendingWrite, outcome: Outcome): Promise<boolean> {
  const rows = await selectRows<{ taken: number }>(
    db,
    `${INSERT_RECORD}
     ON CONFLICT (scope, idempotency_key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, operation = EXCLUDED.operation, response = EXCLUDED.response,
            error_code = EXCLUDED.error_code, error_message = EXCLUDED.error_message, error_param = EXCLUDED.error_param, created_at = now()
      WHERE idempotency_records.created_at <= now() - make_interval(secs => $lifetime)
     RETURNING 1 AS taken`,
    { ...recordValues(write, outcome), lifetime: LIFETIME_SECS },
  );
  return rows.length === 1;
}

/**
 * The effect transaction's record, sent with its COMMIT (kit transaction.ts) in one statement with
 * the change's audit entries. A plain INSERT: when a duplicate committed the key first it fails on
 * the unique index (after waiting for it), which aborts the transaction, so the COMMIT behind it
 * rolls the attempt's change back.
 */
function recordStatement(write: PendingWrite, outcome: Outcome): Statement {
  return {
    sql: INSERT_RECORD,
    bind: recordValues(write, outcome),
  };
}

const UNIQUE_VIOLATION = '23505';

/**
 * A record of (scope, key) past the key lifetime, deleted: the key is new again. False when there
 * was none (a live record, or none at all).
 */
async function deleteExpiredRecord(db: Sequelize, request: IdempotentRequest): Promise<boolean> {
  const rows = await selectRows<{ gone: number }>(
    db,
    `DELETE FROM idempotency_records
      WHERE scope = $scope AND idempotency_key = $key AND created_at <= now() - make_interval(secs => $lifetime)
      RETURNING 1 AS gone`,
    { scope: request.scope, key: request.key, lifetime: LIFETIME_SECS },
  );
  return rows.length > 0;
}

/**
 * The transaction that makes a write's change. Inside `exactlyOnce` (a call with an
 * Idempotency-Key) its last statement writes the key's record with the answer the effect returns,
 * in the same commit and in one statement with the change's audit entries; without a key it is a
 * plain transaction. Only the first effect transaction of a call records. BEGIN and COMMIT cost no
 * round trip of their own (kit transaction.ts), and a first request pays no statement for the key
 * but its record.
 *
 * There is no look-up ahead of the effect. A retry of a committed write runs its effect again,
 * inside this transaction, and is answered from the record:
 *  - the effect succeeds: the record's insert fails on the key's unique index, which rolls the
 *    whole transaction back, and the first answer is replayed;
 *  - the effect fails (it ran into what the first request made or changed): the record is read,
 *    and its answer wins over the error.
 * A concurrent duplicate waits on the unique index for the first to commit, then goes the same
 * way. A record past the key lifetime is deleted and the effect runs once more: the key is new.
 */
export async function effectTransaction<T>(db: Sequelize, effect: (tx: Transaction) => Promise<T>): Promise<T> {
  const write = pendingWrites.getStore();
  const record = write && write.recorded === undefined && !write.ended ? write : undefined;
  let refusal: AppError | undefined;
  let outcome: Outcome | undefined;
  let done: { result: T; lastError?: CommitStatementError };
  try {
    done = await pipelinedTransaction(
      db,
      async (tx) => {
        try {
          const answer = await effect(tx);
          if (record) outcome = { response: record.encode(answer) };
          return answer;
        } catch (err) {
          if (!(err instanceof CommittedRefusal)) throw err;
          refusal = err.error;
          if (record) outcome = { error: err.error };
          return undefined as T;
        }
      },
      () => (record && outcome ? recordStatement(record, outcome) : undefined),
    );
  } catch (err) {
    // Rolled back. A retry's effect may fail on what the first request did: its answer wins. (When
    // the record cannot be read either, the effect's own error says what happened.)
    const stored = record ? await findRecord(db, record.request).catch(() => undefined) : undefined;
    if (stored) throw new AlreadyRecorded(stored);
    throw err;
  }
  const { result, lastError } = done;
  if (lastError) {
    if (!record || lastError.code !== UNIQUE_VIOLATION || lastError.table !== 'idempotency_records') throw lastError;
    // The key has a record: a duplicate that committed first, or this is a retry. This attempt's
    // change rolled back; the first answer is replayed.
    const stored = await findRecord(db, record.request);
    if (stored) throw new AlreadyRecorded(stored);
    if (await deleteExpiredRecord(db, record.request)) return effectTransaction(db, effect);
    throw new AlreadyRecorded();
  }
  if (record && outcome) record.recorded = 'response' in outcome ? outcome.response : 'refusal';
  if (refusal) throw refusal;
  return result;
}

/**
 * An effect that is atomic without a transaction (one statement, or statements each safe alone):
 * run as it is when there is no key to record, in an effect transaction when there is. Saves the
 * pooled connection held across BEGIN and COMMIT on unkeyed writes.
 */
export function atomicEffect<T>(db: Sequelize, effect: (tx: Transaction | undefined) => Promise<T>): Promise<T> {
  const write = pendingWrites.getStore();
  if (!write || write.recorded !== undefined || write.ended) return effect(undefined);
  return effectTransaction(db, effect);
}

/** Errors that are the answer to the request (4xx), as opposed to "try again" (5xx) or our own 409. */
function worthReplaying(err: AppError): boolean {
  return err.httpStatus < 500 && err.code !== 'idempotency_key_reused' && err.code !== 'request_timeout' && err.code !== 'rate_limited';
}

interface StoredRecord {
  fingerprint: string;
  response: Buffer | null;
  error_code: string | null;
  error_message: string | null;
  error_param: string | null;
}

async function findRecord(db: Sequelize, request: IdempotentRequest): Promise<StoredRecord | undefined> {
  return selectOne<StoredRecord>(
    db,
    `SELECT fingerprint, response, error_code, error_message, error_param FROM idempotency_records
      WHERE scope = $scope AND idempotency_key = $key AND created_at > now() - make_interval(secs => $lifetime)`,
    { scope: request.scope, key: request.key, lifetime: LIFETIME_SECS },
  );
}

function replay<P>(record: StoredRecord, request: IdempotentRequest, codec: ResponseCodec<P>): P {
  if (record.fingerprint !== request.fingerprint) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', 'Idempotency-Key');
  }
  if (record.error_code !== null) {
    const code: ApiErrorCode = isApiErrorCode(record.error_code) ? record.error_code : 'internal_error';
    throw new AppError(code, record.error_message ?? '', record.error_param ?? undefined);
  }
  if (record.response === null) throw new AppError('unavailable', 'the first request with this Idempotency-Key left no answer; try again');
  return codec.decode(record.response);
}

export interface ExactlyOnceCall {
  metadata: Metadata;
  /** The gRPC method path, recorded with the key (for operators reading the table). */
  method: string;
}

/**
 * Runs a write RPC once per (scope, Idempotency-Key): the first call executes `write` (whose
 * effectTransaction records the answer), any later call with the same key and request gets the
 * stored answer or error, a different request with the key gets idempotency_key_reused.
 */
export async function exactlyOnce<R, P>(
  call: ExactlyOnceCall,
  db: Sequelize,
  codec: ResponseCodec<P>,
  toResponse: (answer: R) => P,
  write: () => Promise<R>,
  logger?: Logger,
): Promise<P> {
  const request = idempotentRequestOf(call.metadata);
  if (!request) return pendingWrites.run(undefined, async () => toResponse(await write()));
  // No look-up of its own: the effect transaction's record finds an earlier one (its insert fails on
  // the key) or waits for one in flight. A retry runs the use case and its effect (provisioning
  // reserves credits and gives them back), which roll back, then replays.
  const pending: PendingWrite = {
    request,
    operation: call.method,
    encode(answer) {
      const response = toResponse(answer as R);
      pending.answered = { answer, response };
      return codec.encode(response).finish();
    },
  };
  try {
    const answer = await pendingWrites.run(pending, write);
    // The use case returns what its effect transaction recorded, as a rule: that response
    // message is reused, not made and encoded again.
    if (pending.recorded !== undefined && pending.recorded !== 'refusal' && pending.answered?.answer === answer) return pending.answered.response as P;
    const response = toResponse(answer);
    if (pending.recorded === undefined) {
      // A write with no effect transaction: remember its answer after the fact (nothing to guard).
      logger?.warn({ method: call.method }, 'idempotent write without an effect transaction');
      if (!(await writeRecord(db, pending, { response: codec.encode(response).finish() }))) return replayStored(db, request, codec);
    } else if (pending.recorded !== 'refusal' && !Buffer.from(pending.recorded).equals(Buffer.from(codec.encode(response).finish()))) {
      logger?.error({ method: call.method }, 'the answer of an idempotent write differs from the one its effect transaction recorded');
    }
    return response;
  } catch (err) {
    if (err instanceof AlreadyRecorded) return err.stored ? replay(err.stored, request, codec) : replayStored(db, request, codec);
    if (err instanceof AppError && pending.recorded === undefined && worthReplaying(err)) {
      // Nothing committed: remembering the refusal after the rolled-back attempt is safe.
      if (!(await writeRecord(db, pending, { error: err }))) return replayStored(db, request, codec);
    }
    throw err;
  } finally {
    pending.ended = true;
  }
}

async function replayStored<P>(db: Sequelize, request: IdempotentRequest, codec: ResponseCodec<P>): Promise<P> {
  const record = await findRecord(db, request);
  if (!record) throw new AppError('unavailable', 'a concurrent request with this Idempotency-Key did not finish; try again');
  return replay(record, request, codec);
}
