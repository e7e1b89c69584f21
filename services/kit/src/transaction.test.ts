import type { Socket } from 'node:net';
import type { Transaction } from 'sequelize';
import { migrate, openDatabase, type Sequelize } from './db';
import { execute, selectRows } from './sql';
import { pipelinedTransaction, sendAtCommit } from './transaction';
import { createTestDatabase, type TestDatabase } from './testing';

let db: TestDatabase;
let sequelize: Sequelize;

beforeAll(async () => {
  db = await createTestDatabase('pd_kit_tx');
  sequelize = openDatabase({ url: db.url, schema: 'tx' });
  await migrate(sequelize, 'tx', [{ name: '0001', up: ({ sql }) => sql(`CREATE TABLE marks (id serial PRIMARY KEY, label text NOT NULL)`) }]);
});

afterAll(async () => {
  await sequelize.close();
  await db.drop();
});

const INSERT = 'INSERT INTO marks (label) VALUES ($label) RETURNING id';

async function labels(prefix: string): Promise<string[]> {
  const rows = await selectRows<{ label: string }>(sequelize, `SELECT label FROM marks WHERE label LIKE $prefix ORDER BY label`, { prefix: `${prefix}%` });
  return rows.map((r) => r.label);
}

/**
 * What the transaction's socket writes to PostgreSQL from now on: one entry per write (each a
 * packet that wakes the backend), the protocol messages' type letters in it (P parse, B bind,
 * E execute, S sync, Q simple query...).
 */
function socketWrites(tx: Transaction): { writes: string[][] } {
  const socket = (tx as unknown as { connection: { connection: { stream: Socket } } }).connection.connection.stream as Socket & {
    _write: (chunk: Buffer, ...rest: unknown[]) => void;
    _writev: (chunks: Array<{ chunk: Buffer }>, ...rest: unknown[]) => void;
  };
  const seen: { writes: string[][] } = { writes: [] };
  const messages = (bytes: Buffer): string[] => {
    const types: string[] = [];
    for (let at = 0; at + 5 <= bytes.length; at += 1 + bytes.readInt32BE(at + 1)) types.push(String.fromCharCode(bytes[at]));
    return types;
  };
  const write = socket._write;
  socket._write = function counted(this: unknown, chunk: Buffer, ...rest: unknown[]) {
    seen.writes.push(messages(chunk));
    return write.call(this, chunk, ...rest);
  };
  const writev = socket._writev;
  socket._writev = function counted(this: unknown, chunks: Array<{ chunk: Buffer }>, ...rest: unknown[]) {
    seen.writes.push(messages(Buffer.concat(chunks.map((c) => c.chunk))));
    return writev.call(this, chunks, ...rest);
  };
  return seen;
}

const syncs = (messages: string[]) => messages.filter((m) => m === 'S').length;

describe('a pipelined transaction', () => {
  it('sends the statements of one moment in one write, and the entries handed to the commit with the last statement as one statement beside COMMIT', async () => {
    let socket: { writes: string[][] } = { writes: [] };
    const { result, lastError } = await pipelinedTransaction(
      sequelize,
      async (tx) => {
        socket = socketWrites(tx);
        const a = selectRows<{ id: number }>(sequelize, INSERT, { label: 'one-a' }, tx);
        const b = selectRows<{ id: number }>(sequelize, INSERT, { label: 'one-b' }, tx);
        await Promise.all([a, b]);
        // Goes out with COMMIT (as an audit entry does), merged with another and the last statement.
        expect(sendAtCommit(tx, { sql: INSERT, bind: { label: 'one-c' } })).toBe(true);
        expect(sendAtCommit(tx, { sql: INSERT, bind: { label: 'one-d' } })).toBe(true);
        return 'done';
      },
      () => ({ sql: 'INSERT INTO marks (label) VALUES ($label)', bind: { label: 'one-e' } }),
    );
    expect(result).toBe('done');
    expect(lastError).toBeUndefined();
    // The two inserts of one moment: one write, a Sync each.
    expect(socket.writes).toHaveLength(2);
    expect(syncs(socket.writes[0])).toBe(2);
    // The commit: one write, one statement (one Sync) for the three inserts, then COMMIT.
    expect(syncs(socket.writes[1])).toBe(1);
    expect(socket.writes[1].at(-1)).toBe('Q');
    expect(await labels('one-')).toEqual(['one-a', 'one-b', 'one-c', 'one-d', 'one-e']);
  });

  it('merges at most sixteen statements into one: more go out as several, all with COMMIT', async () => {
    let socket: { writes: string[][] } = { writes: [] };
    await pipelinedTransaction(
      sequelize,
      async (tx) => {
        socket = socketWrites(tx);
        for (let i = 10; i < 30; i += 1) sendAtCommit(tx, { sql: INSERT, bind: { label: `seven-${i}` } });
      },
      () => ({ sql: 'INSERT INTO marks (label) VALUES ($label)', bind: { label: 'seven-30' } }),
    );
    // The commit's write: two statements (16 and 5 inserts), then COMMIT.
    const commit = socket.writes.at(-1)!;
    expect(syncs(commit)).toBe(2);
    expect(commit.at(-1)).toBe('Q');
    expect(await labels('seven-')).toHaveLength(21);
  });

  it('rolls back, and releases its connection, when the last statement lacks a value', async () => {
    await expect(
      pipelinedTransaction(
        sequelize,
        async (tx) => {
          await selectRows(sequelize, INSERT, { label: 'eight-a' }, tx);
        },
        () => ({ sql: 'INSERT INTO marks (label) VALUES ($label)', bind: {} }),
      ),
    ).rejects.toThrow('without a value');
    expect(await labels('eight-')).toEqual([]);
  });

  it('answers a statement awaited after one handed to the commit', async () => {
    await pipelinedTransaction(sequelize, async (tx) => {
      expect(sendAtCommit(tx, { sql: INSERT, bind: { label: 'two-a' } })).toBe(true);
      const [row] = await selectRows<{ id: number }>(sequelize, INSERT, { label: 'two-b' }, tx);
      expect(row.id).toBeGreaterThan(0);
    });
    expect(await labels('two-')).toEqual(['two-a', 'two-b']);
  });

  it('rolls back all of the transaction when the last statement fails, and says why', async () => {
    await execute(sequelize, 'INSERT INTO marks (id, label) VALUES ($id, $label)', { id: 1000, label: 'taken' });
    const { lastError } = await pipelinedTransaction(
      sequelize,
      async (tx) => {
        await selectRows(sequelize, INSERT, { label: 'three-a' }, tx);
        sendAtCommit(tx, { sql: INSERT, bind: { label: 'three-b' } });
      },
      () => ({ sql: 'INSERT INTO marks (id, label) VALUES (1000, $label)', bind: { label: 'three-c' } }),
    );
    expect(lastError?.code).toBe('23505');
    expect(lastError?.table).toBe('marks');
    expect(await labels('three-')).toEqual([]);
  });

  it('throws the error of an entry handed to the commit when there is no last statement, and rolls back', async () => {
    await expect(
      pipelinedTransaction(sequelize, async (tx) => {
        await selectRows(sequelize, INSERT, { label: 'four-a' }, tx);
        sendAtCommit(tx, { sql: 'INSERT INTO marks (id, label) VALUES (1000, $label)', bind: { label: 'four-b' } });
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await labels('four-')).toEqual([]);
  });

  it('sends nothing handed to the commit when the work fails', async () => {
    await expect(
      pipelinedTransaction(sequelize, async (tx) => {
        sendAtCommit(tx, { sql: INSERT, bind: { label: 'five-a' } });
        await selectRows(sequelize, INSERT, { label: 'five-b' }, tx);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await labels('five-')).toEqual([]);
  });

  it('refuses a statement with a $name without a value, and any outside a pipelined transaction', async () => {
    await pipelinedTransaction(sequelize, async (tx) => {
      expect(sendAtCommit(tx, { sql: INSERT, bind: {} })).toBe(false);
    });
    await sequelize.transaction(async (tx) => {
      expect(sendAtCommit(tx, { sql: INSERT, bind: { label: 'six-a' } })).toBe(false);
    });
    expect(await labels('six-')).toEqual([]);
  });
});
