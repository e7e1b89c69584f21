import { openDatabase, type Sequelize } from './db';
import { bigintText, execute, executeTogether, preparedRows, selectOne, selectRows, selectTogether, toNumber } from './sql';
import { createTestDatabase, type TestDatabase } from './testing';

describe('SQL with bind parameters', () => {
  let testDb: TestDatabase;
  let db: Sequelize;

  beforeAll(async () => {
    testDb = await createTestDatabase('pd_kit_sql');
    db = openDatabase({ url: testDb.url, schema: 'kit_sql', poolMax: 2 });
    await db.query('CREATE SCHEMA kit_sql');
    await execute(db, 'CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL, tags text[] NOT NULL, blob bytea, amount numeric)');
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  it('sends values apart from the text: a quote or a comment is stored as written', async () => {
    const body = "it's -- not SQL'); DROP TABLE notes; --";
    const row = await selectOne<{ id: string; body: string }>(db, 'INSERT INTO notes (body, tags) VALUES ($body, $tags) RETURNING id, body', {
      body,
      tags: [],
    });
    expect(row?.body).toBe(body);
    expect(await selectRows(db, 'SELECT 1 FROM notes')).toHaveLength(1);
  });

  it('passes arrays as arrays, Buffers as bytea, null as NULL, and a name used twice once', async () => {
    const blob = Buffer.from([0, 1, 2, 255]);
    await execute(db, 'INSERT INTO notes (body, tags, blob, amount) VALUES ($body, $tags, $blob, $amount)', {
      body: 'tagged',
      tags: ['a', 'b,c'],
      blob,
      amount: null,
    });
    const rows = await selectRows<{ tags: string[]; blob: Buffer; amount: string | null; same: boolean }>(
      db,
      'SELECT tags, blob, amount, $x::text = $x::text AS same FROM notes WHERE $tag = ANY(tags)',
      { tag: 'b,c', x: 'y' },
    );
    expect(rows).toEqual([{ tags: ['a', 'b,c'], blob, amount: null, same: true }]);
  });

  it('runs independent statements together: each its own values under the same names, all or none in a transaction', async () => {
    const insert = (body: string) => ({ sql: 'INSERT INTO notes (body, tags, amount) VALUES ($body, $tags, $amount)', bind: { body, tags: ['together'], amount: 1.5 } });
    await db.transaction(async (tx) => {
      await executeTogether(db, [insert('first'), insert('second'), { sql: "UPDATE notes SET amount = $amount WHERE body = 'tagged'", bind: { amount: 7 } }], tx);
    });
    const rows = await selectRows<{ body: string; amount: string }>(db, "SELECT body, amount FROM notes WHERE 'together' = ANY(tags) OR body = 'tagged' ORDER BY body");
    expect(rows).toEqual([
      { body: 'first', amount: '1.5' },
      { body: 'second', amount: '1.5' },
      { body: 'tagged', amount: '7' },
    ]);
    // A failing statement takes the others with it.
    await expect(executeTogether(db, [insert('third'), { sql: 'INSERT INTO notes (body, tags) VALUES ($body, NULL)', bind: { body: 'no tags' } }])).rejects.toThrow(/null value/);
    expect(await selectOne(db, "SELECT 1 FROM notes WHERE body = 'third'")).toBeUndefined();
    await expect(executeTogether(db, [{ sql: 'DELETE FROM notes WHERE body = $body', bind: {} }])).rejects.toThrow('no value for $body');
  });

  it('lets a later statement and the final select read a named statement\'s RETURNING rows', async () => {
    const rows = await db.transaction((tx) =>
      selectTogether<{ body: string; amount: string }>(
        db,
        [
          { name: 'added', sql: 'INSERT INTO notes (body, tags, amount) SELECT b, $tags, 2 FROM unnest($bodies::text[]) AS b RETURNING id, body', bind: { bodies: ['n1', 'n2'], tags: ['named'] } },
          { sql: 'UPDATE notes SET amount = $amount WHERE body = $body', bind: { amount: 3, body: 'tagged' } },
          // Reads the first statement's rows (its output), not the table it wrote.
          { name: 'copied', sql: "INSERT INTO notes (body, tags, amount) SELECT body || '-copy', $tags, $amount FROM added RETURNING body, amount", bind: { tags: ['named'], amount: 4 } },
        ],
        'SELECT body, amount::text FROM added JOIN notes USING (body) UNION ALL SELECT body, amount::text FROM copied ORDER BY body',
        tx,
      ),
    );
    // The select's read of notes does not see the rows the statement added: only its named outputs.
    expect(rows).toEqual([
      { body: 'n1-copy', amount: '4' },
      { body: 'n2-copy', amount: '4' },
    ]);
    const stored = await selectRows<{ body: string; amount: string }>(db, "SELECT body, amount FROM notes WHERE 'named' = ANY(tags) OR body = 'tagged' ORDER BY body");
    expect(stored).toEqual([
      { body: 'n1', amount: '2' },
      { body: 'n1-copy', amount: '4' },
      { body: 'n2', amount: '2' },
      { body: 'n2-copy', amount: '4' },
      { body: 'tagged', amount: '3' },
    ]);
  });

  it('answers undefined for no row, and runs inside the transaction it is given', async () => {
    expect(await selectOne(db, 'SELECT id FROM notes WHERE body = $body', { body: 'absent' })).toBeUndefined();
    await db
      .transaction(async (tx) => {
        await execute(db, "INSERT INTO notes (body, tags) VALUES ('rolled back', '{}')", {}, tx);
        expect(await selectOne(db, "SELECT id FROM notes WHERE body = 'rolled back'", {}, tx)).toBeDefined();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await selectOne(db, "SELECT id FROM notes WHERE body = 'rolled back'")).toBeUndefined();
  });

  it('inside a transaction, prepares a statement once per connection and answers as outside one', async () => {
    const sql = 'SELECT body, tags, amount, blob, $x::text = $x::text AS same FROM notes WHERE $tag = ANY(tags) ORDER BY id';
    const outside = await selectRows(db, sql, { tag: 'b,c', x: 'y' });
    expect(outside).toHaveLength(1);
    await db.transaction(async (tx) => {
      for (let i = 0; i < 3; i += 1) expect(await selectRows(db, sql, { tag: 'b,c', x: 'y' }, tx)).toEqual(outside);
      // Named and prepared on this connection, under its text with $1, $2 (the original has $x, $tag).
      const prepared = await selectRows<{ statement: string }>(db, 'SELECT statement FROM pg_prepared_statements WHERE name LIKE $prefix', { prefix: 'pd_%' }, tx);
      expect(prepared.map((r) => r.statement)).toContain(sql.replace(/\$x/g, '$1').replace('$tag', '$2'));
    });
    // A value left out goes the way it always went (through sequelize, refused by PostgreSQL), not into a wrong statement.
    await expect(db.transaction((tx) => selectRows(db, sql, { tag: 'b,c' }, tx))).rejects.toThrow();
  });

  it('inside a transaction, a database error carries its SQLSTATE and rolls the transaction back', async () => {
    const failed = await db
      .transaction(async (tx) => {
        await execute(db, 'INSERT INTO notes (body, tags) VALUES ($body, $tags)', { body: 'kept?', tags: [] }, tx);
        await execute(db, 'INSERT INTO notes (id, body, tags) VALUES ($id, $body, $tags)', { id: 1, body: 'twice', tags: [] }, tx);
      })
      .then(
        () => ({ code: 'committed' }),
        (err: { code?: string }) => err,
      );
    expect(failed.code).toBe('23505');
    expect(await selectOne(db, 'SELECT id FROM notes WHERE body = $body', { body: 'kept?' })).toBeUndefined();
  });

  it('runs a named prepared statement with positional values, again and again', async () => {
    for (let i = 0; i < 3; i += 1) {
      const rows = await preparedRows<{ n: string }>(db, 'kit_count_tagged', 'SELECT count(*) AS n FROM notes WHERE $1 = ANY(tags)', ['a']);
      expect(rows).toEqual([{ n: '1' }]);
    }
  });

  it('converts BIGINT and NUMERIC text at the repository edge', () => {
    expect(toNumber('12.50')).toBe(12.5);
    expect(toNumber(null)).toBe(0);
    expect(bigintText('9007199254740993')).toBe('9007199254740993');
    expect(bigintText(undefined)).toBe('0');
  });
});
