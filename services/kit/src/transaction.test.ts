import type { Socket } from 'node:net';
import type { Transaction } from 'sequelize';
import { migrate, openDatabase, type Sequelize } from './db';
import { execute, selectRows } from './sql';
import { answerAtCommit, pipelinedTransaction } from './transaction';
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

/** How many times the transaction's socket writes to PostgreSQL from now on (each a packet that wakes the backend). */
function socketWrites(tx: Transaction): { count(): number } {
  const socket = (tx as unknown as { connection: { connection: { stream: Socket } } }).connection.connection.stream as Socket & {
    _write: (...args: unknown[]) => void;
    _writev: (...args: unknown[]) => void;
  };
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method];
    socket[method] = function counted(this: unknown, ...args: unknown[]) {
      writes += 1;
      return original.apply(this, args);
    };
  }
  return { count: () => writes };
}

describe('a pipelined transaction', () => {
  it('sends the statements of one moment in one write, and an entry answered at commit with the last statement and COMMIT', async () => {
    const seen: number[] = [];
    const { result, last } = await pipelinedTransaction(
      sequelize,
      async (tx) => {
        const writes = socketWrites(tx);
        const a = selectRows<{ id: number }>(sequelize, INSERT, { label: 'one-a' }, tx);
        const b = selectRows<{ id: number }>(sequelize, INSERT, { label: 'one-b' }, tx);
        await Promise.all([a, b]);
        seen.push(writes.count());
        // Sent now, answered with COMMIT (as an audit entry is), then the last statement and COMMIT.
        await answerAtCommit(tx, execute(sequelize, INSERT, { label: 'one-c' }, tx));
        return writes;
      },
      () => ({ name: 'pd_test_mark', text: 'INSERT INTO marks (label) VALUES ($1) RETURNING id', values: ['one-d'] }),
    );
    seen.push(result.count() - seen[0]);
    expect(seen).toEqual([1, 1]);
    expect(last && 'rows' in last && last.rows).toHaveLength(1);
    expect(await labels('one-')).toEqual(['one-a', 'one-b', 'one-c', 'one-d']);
  });

  it('answers a statement awaited right after one held for the commit', async () => {
    await pipelinedTransaction(sequelize, async (tx) => {
      await answerAtCommit(tx, execute(sequelize, INSERT, { label: 'two-a' }, tx));
      const [row] = await selectRows<{ id: number }>(sequelize, INSERT, { label: 'two-b' }, tx);
      expect(row.id).toBeGreaterThan(0);
    });
    expect(await labels('two-')).toEqual(['two-a', 'two-b']);
  });

  it('rolls back all of the moment when the last statement fails', async () => {
    await execute(sequelize, 'INSERT INTO marks (id, label) VALUES ($id, $label)', { id: 1000, label: 'taken' });
    const { last } = await pipelinedTransaction(
      sequelize,
      async (tx) => {
        await answerAtCommit(tx, execute(sequelize, INSERT, { label: 'three-a' }, tx));
      },
      () => ({ name: 'pd_test_fail', text: 'INSERT INTO marks (id, label) VALUES (1000, $1)', values: ['three-b'] }),
    );
    expect(last && 'error' in last && last.error.code).toBe('23505');
    expect(await labels('three-')).toEqual([]);
  });
});
