import { Transaction, type Sequelize } from 'sequelize';
import { bindsEvery, mergedWireStatement, type Statement, type WireStatement } from './statements';

/**
 * Transactions that cost no round trip of their own. node-postgres' pipeline mode sends a query
 * without waiting for the answer of the one before it (each with its own Sync, answered in
 * order), so on a connection of the pool:
 *
 *  - BEGIN goes out with the transaction's first statement, not one round trip ahead of it;
 *  - the statements nobody waits for (sendAtCommit: audit entries) and the transaction's last
 *    statement (`last`: an idempotency record) go out with COMMIT, merged into one statement.
 *
 * A write of three statements pays three round trips instead of five. The transaction's own
 * statements are still sent one after another as the use case awaits each (they depend on each
 * other); only BEGIN and COMMIT, which carry no answer a use case waits for, ride along. What is
 * sent in the same moment also leaves in the same packet (holdWrites).
 *
 * Why this is safe: PostgreSQL runs the messages in order. A failed BEGIN (the connection is gone)
 * fails what follows it too. When the statement sent with COMMIT fails (a unique violation of
 * `last`: a duplicate committed first), the transaction is aborted and the COMMIT sent behind it
 * answers ROLLBACK: nothing of the transaction commits. A failed COMMIT leaves the connection in
 * no known state: it is destroyed, never returned to the pool (as sequelize does).
 *
 * `tx` is a sequelize Transaction: statements through selectRows/execute (kit sql.ts) and
 * sequelize's own queries run in it as in any other.
 */

/** Why the statement sent with COMMIT failed (node-postgres' error: SQLSTATE in `code`, the table in `table`). */
export type CommitStatementError = Error & { code?: string; table?: string };

interface PipelinedConnection {
  pipeline: boolean;
  uuid?: string;
  /** node-postgres' protocol connection and its socket. */
  connection?: { stream?: { cork?(): void; uncork?(): void } };
  query(config: string | WireStatement): Promise<{ command: string }>;
}

interface ConnectionManager {
  getConnection(options: { uuid: string }): Promise<PipelinedConnection>;
  releaseConnection(connection: PipelinedConnection): Promise<void>;
  destroyConnection(connection: PipelinedConnection): Promise<void>;
}

/** What an open pipelined transaction keeps beside its sequelize Transaction. */
interface Pipelined {
  /** Statements that go out with COMMIT (sendAtCommit), in the order they were handed over. */
  atCommit: Statement[];
  /** Holds the connection's writes until the next tick (holdWrites). */
  hold(): void;
}

const pipelined = new WeakMap<Transaction, Pipelined>();

/** Statements merged into one at the commit, at most: a statement's text and its parameters stay small. */
const MERGED_AT_MOST = 16;

/**
 * Hands a statement whose answer nobody waits for (an audit entry: its insert returns nothing the
 * change needs) to the commit of a pipelined transaction: it goes out with COMMIT, merged with the
 * others and the transaction's last statement into one statement (each a CTE), so it costs
 * neither a round trip nor a Sync of its own, and PostgreSQL answers the lot in one reply. False,
 * and nothing kept, when `tx` is not an open pipelined transaction or a `$name` has no value: run
 * it then as any other statement. Such a statement must not read what the change's later
 * statements write, nor they what it writes: they run before it.
 */
export function sendAtCommit(tx: Transaction, statement: Statement): boolean {
  const open = pipelined.get(tx);
  if (!open || (tx as unknown as OpenTransaction).finished) return false;
  if (!bindsEvery(statement)) return false;
  open.atCommit.push(statement);
  return true;
}

/**
 * Holds the writes of a pipelined transaction's connection until the statements being sent in this
 * moment (this run of promise continuations) are all written, so that they leave together: BEGIN
 * with the first statements, the statement sent with COMMIT and COMMIT. Each keeps its
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
 * Runs `work` in a transaction whose BEGIN is pipelined with its first statement; when `work`
 * resolves, what was handed to sendAtCommit and `last(result)` (if any) are sent together with
 * COMMIT. Resolves with work's result and, when that statement failed (the whole transaction
 * rolled back), its error as `lastError` if there was a `last`; without one, the error is thrown.
 * work throwing rolls back and rethrows.
 */
export async function pipelinedTransaction<T>(
  db: Sequelize,
  work: (tx: Transaction) => Promise<T>,
  last?: (result: T) => Statement | undefined,
): Promise<{ result: T; lastError?: CommitStatementError }> {
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
  const atCommit: Statement[] = [];
  pipelined.set(tx, { atCommit, hold });
  hold();
  const begun = connection.query('BEGIN');
  begun.catch(() => undefined);

  const finish = async (how: 'commit' | 'rollback', destroy: boolean) => {
    open.finished = how;
    connection.uuid = undefined;
    await (destroy ? manager.destroyConnection(connection) : manager.releaseConnection(connection));
  };

  const rollBack = async (err: unknown): Promise<never> => {
    try {
      await connection.query('ROLLBACK');
    } catch {
      await finish('rollback', true);
      throw err;
    }
    await finish('rollback', false);
    throw err;
  };

  let result: T;
  try {
    result = await work(tx);
    await begun;
  } catch (err) {
    // What was handed to sendAtCommit was never sent: it rolls back with the rest.
    return rollBack(err);
  }

  const statement = last?.(result);
  if (statement) atCommit.push(statement);
  // One statement for all of them (up to MERGED_AT_MOST): one Bind, one Execute, one Sync, so
  // PostgreSQL sends one reply where each statement of its own would cost one (it flushes at every Sync).
  const merged: WireStatement[] = [];
  for (let i = 0; i < atCommit.length; i += MERGED_AT_MOST) {
    const chunk = atCommit.slice(i, i + MERGED_AT_MOST);
    const wire = mergedWireStatement(chunk);
    if (!wire) return rollBack(new Error('pipelinedTransaction: the last statement has a $name without a value'));
    merged.push(wire);
  }
  hold();
  const sent = merged.map((wire) => connection.query(wire));
  const committed = connection.query('COMMIT');
  for (const one of sent) one.catch(() => undefined);
  committed.catch(() => undefined);
  // The first failure is the one that aborted the transaction (those after it were refused for it).
  const failed = (await Promise.allSettled(sent)).find((e): e is PromiseRejectedResult => e.status === 'rejected');
  const failure = failed?.reason as CommitStatementError | undefined;
  if (failure && !statement) {
    // An entry handed to sendAtCommit failed: the transaction aborted, its COMMIT answered ROLLBACK.
    await Promise.allSettled([committed]);
    await finish('rollback', false);
    throw failure;
  }
  try {
    const answer = await committed;
    // A statement that failed aborted the transaction: its COMMIT answered ROLLBACK.
    if (answer.command !== 'COMMIT' && !failure) throw new Error(`COMMIT answered ${answer.command}`);
  } catch (err) {
    await finish('commit', true);
    throw err;
  }
  await finish(failure ? 'rollback' : 'commit', false);
  return { result, lastError: failure };
}
