import type { QueryResultRow } from 'pg';
import { Transaction, type Sequelize } from 'sequelize';

/**
 * Transactions that cost no round trip of their own. node-postgres' pipeline mode sends a query
 * without waiting for the answer of the one before it (each with its own Sync, answered in
 * order), so on a connection of the pool:
 *
 *  - BEGIN goes out with the transaction's first statement, not one round trip ahead of it;
 *  - the transaction's last statement (`last`: an idempotency record) goes out with COMMIT.
 *
 * A write of three statements pays three round trips instead of five. The transaction's own
 * statements are still sent one after another as the use case awaits each (they depend on each
 * other); only BEGIN and COMMIT, which carry no answer a use case waits for, ride along. What is
 * sent in the same moment also leaves in the same packet (holdWrites).
 *
 * Why this is safe: PostgreSQL runs the messages in order. A failed BEGIN (the connection is gone)
 * fails what follows it too. When `last` fails (a unique violation: a duplicate committed first),
 * the transaction is aborted and the COMMIT sent behind it answers ROLLBACK: nothing of the
 * transaction commits. A failed COMMIT leaves the connection in no known state: it is destroyed,
 * never returned to the pool (as sequelize does).
 *
 * `tx` is a sequelize Transaction: statements through selectRows/execute (kit sql.ts) and
 * sequelize's own queries run in it as in any other.
 */

/** The statement sent together with COMMIT, positional parameters ($1, $2 ...). */
export interface LastStatement {
  /** A prepared statement's name: the same name, the same text, on every connection. */
  name: string;
  text: string;
  values: unknown[];
}

/** What the last statement answered: its rows, or its error (the transaction then rolled back). */
export type LastOutcome<R> = { rows: R[] } | { error: Error & { code?: string } };

interface PipelinedConnection {
  pipeline: boolean;
  uuid?: string;
  /** node-postgres' protocol connection and its socket. */
  connection?: { stream?: { cork?(): void; uncork?(): void } };
  query<R extends QueryResultRow>(config: string | { name: string; text: string; values: unknown[] }): Promise<{ rows: R[]; command: string }>;
}

interface ConnectionManager {
  getConnection(options: { uuid: string }): Promise<PipelinedConnection>;
  releaseConnection(connection: PipelinedConnection): Promise<void>;
  destroyConnection(connection: PipelinedConnection): Promise<void>;
}

/** SQLSTATE 25P02: a statement of a transaction that an earlier failure aborted. */
const IN_FAILED_TRANSACTION = '25P02';

/** What an open pipelined transaction keeps beside its sequelize Transaction. */
interface Pipelined {
  /**
   * Statements already sent whose answers nobody waits for before COMMIT (an audit entry: its
   * insert returns nothing the change needs). They ride with COMMIT: a failed one aborted the
   * transaction, so COMMIT answers ROLLBACK and its error is thrown.
   */
  answeredAtCommit: Array<Promise<unknown>>;
  /** Holds the connection's writes until the next tick (holdWrites). */
  hold(): void;
}

const pipelined = new WeakMap<Transaction, Pipelined>();

/**
 * Hands a statement `tx` has already sent (in order, on its connection) to the commit: in a
 * pipelined transaction its answer is awaited together with COMMIT and costs no round trip of its
 * own; in any other transaction it is awaited here, as before.
 */
export function answerAtCommit(tx: Transaction, sent: Promise<unknown>): Promise<void> {
  const open = pipelined.get(tx);
  if (!open) return sent.then(() => undefined);
  sent.catch(() => undefined);
  open.answeredAtCommit.push(sent);
  return Promise.resolve();
}

/**
 * Holds the writes of a pipelined transaction's connection until the statements being sent in this
 * moment (this run of promise continuations) are all written, so that they leave together: BEGIN
 * with the first statements, an audit entry with the idempotency record and COMMIT. Each keeps its
 * own Sync and answer; PostgreSQL, woken once, runs them in order. On a virtual machine every
 * write that wakes the other side costs far more than its bytes: a keyed write sent six
 * messages, each waking the backend, where it now sends two. Released on the next tick, after the
 * continuations ran; nothing waits on an answer before that (an answer needs the next turn of the
 * event loop). No effect outside a pipelined transaction.
 */
export function holdWrites(tx: Transaction): void {
  pipelined.get(tx)?.hold();
}

interface OpenTransaction {
  connection?: PipelinedConnection;
  finished?: string;
  id: string;
}

/**
 * Refuses every later statement of the transaction (sequelize says it is finished): it will roll
 * back. For a transaction whose work turned out to be unneeded while its statements were in flight.
 */
export function abandonTransaction(tx: Transaction): void {
  (tx as unknown as OpenTransaction).finished = 'rollback';
}

/**
 * Runs `work` in a transaction whose BEGIN is pipelined with its first statement; when `work`
 * resolves, `last(result)` (if any) is sent together with COMMIT. Resolves with work's result
 * and what `last` answered; a `last` that failed rolled the whole transaction back. work throwing
 * rolls back and rethrows.
 */
export async function pipelinedTransaction<T, R extends QueryResultRow = QueryResultRow>(
  db: Sequelize,
  work: (tx: Transaction) => Promise<T>,
  last?: (result: T) => LastStatement | undefined,
): Promise<{ result: T; last?: LastOutcome<R> }> {
  const manager = (db as unknown as { connectionManager: ConnectionManager }).connectionManager;
  const tx = new Transaction(db, {});
  const open = tx as unknown as OpenTransaction;
  const connection = await manager.getConnection({ uuid: open.id });
  connection.uuid = open.id;
  open.connection = connection;
  // Pipeline mode only changes queries sent without awaiting the one before: everything else on
  // this pooled connection (sequelize's, awaited one at a time) behaves as before.
  connection.pipeline = true;
  const stream = connection.connection?.stream;
  let held = false;
  const hold = () => {
    if (held || !stream?.cork || !stream.uncork) return;
    held = true;
    stream.cork();
    process.nextTick(() => {
      held = false;
      stream.uncork!();
    });
  };
  const pending: Array<Promise<unknown>> = [];
  pipelined.set(tx, { answeredAtCommit: pending, hold });
  hold();
  const begun = connection.query('BEGIN');
  begun.catch(() => undefined);

  const finish = async (how: 'commit' | 'rollback', destroy: boolean) => {
    open.finished = how;
    connection.uuid = undefined;
    await (destroy ? manager.destroyConnection(connection) : manager.releaseConnection(connection));
  };

  let result: T;
  try {
    result = await work(tx);
    await begun;
  } catch (thrown) {
    // A statement refused because one sent earlier (answerAtCommit) failed: that one's error says why.
    let err = thrown;
    if ((thrown as { code?: string }).code === IN_FAILED_TRANSACTION) {
      const early = (await Promise.allSettled(pending)).find((e): e is PromiseRejectedResult => e.status === 'rejected');
      if (early) err = early.reason;
    }
    try {
      await connection.query('ROLLBACK');
    } catch {
      await finish('rollback', true);
      throw err;
    }
    await finish('rollback', false);
    throw err;
  }

  const statement = last?.(result);
  hold();
  const sent = statement ? connection.query<R>({ name: statement.name, text: statement.text, values: statement.values }) : undefined;
  const committed = connection.query('COMMIT');
  sent?.catch(() => undefined);
  committed.catch(() => undefined);
  // What work sent without waiting (answerAtCommit) was answered before COMMIT: a failure there
  // aborted the transaction, whose COMMIT then answers ROLLBACK.
  const early = await Promise.allSettled(pending);
  const failed = early.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed) {
    await Promise.allSettled([sent, committed]);
    await finish('rollback', false);
    throw failed.reason;
  }
  let outcome: LastOutcome<R> | undefined;
  if (sent) {
    try {
      outcome = { rows: (await sent).rows };
    } catch (err) {
      outcome = { error: err as Error & { code?: string } };
    }
  }
  try {
    const answer = await committed;
    // A last statement that failed aborted the transaction: its COMMIT answered ROLLBACK.
    if (answer.command !== 'COMMIT' && !(outcome && 'error' in outcome)) throw new Error(`COMMIT answered ${answer.command}`);
  } catch (err) {
    await finish('commit', true);
    throw err;
  }
  await finish(outcome && 'error' in outcome ? 'rollback' : 'commit', false);
  return { result, last: outcome };
}
