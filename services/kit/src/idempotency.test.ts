import { Metadata } from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { migrate, openDatabase, type Sequelize } from './db';
import { AppError } from './errors';
import { atomicEffect, CommittedRefusal, effectTransaction, exactlyOnce, type ResponseCodec } from './idempotency';
import { setIdempotencyMetadata } from './idempotency-metadata';
import { deleteExpiredIdempotencyRecords, IDEMPOTENCY_RECORDS_DDL, idempotencyRecordsRetention } from './idempotency-records';
import { execute, selectRows } from './sql';
import { createTestDatabase, type TestDatabase } from './testing';

/** A one-field response message (field 1, string), encoded as ts-proto would. */
interface Said {
  text: string;
}
const SaidCodec: ResponseCodec<Said> = {
  encode: (m) => new BinaryWriter().uint32(10).string(m.text),
  decode: (bytes) => {
    const reader = new BinaryReader(bytes);
    reader.uint32();
    return { text: reader.string() };
  },
};

let db: TestDatabase;
let sequelize: Sequelize;

beforeAll(async () => {
  db = await createTestDatabase('pd_kit_once');
  sequelize = openDatabase({ url: db.url, schema: 'once' });
  await migrate(sequelize, 'once', [
    { name: '0001', up: ({ sql }) => sql(`${IDEMPOTENCY_RECORDS_DDL}; CREATE TABLE effects (id serial PRIMARY KEY, label text NOT NULL);`) },
  ]);
});

afterAll(async () => {
  await sequelize.close();
  await db.drop();
});

function call(key: string | undefined, fingerprint = 'fp-1'): { metadata: Metadata; method: string } {
  const metadata = new Metadata();
  if (key !== undefined) setIdempotencyMetadata(metadata, { scope: 'org/key', key, fingerprint });
  return { metadata, method: '/test.v1.Test/Write' };
}

async function effects(label: string): Promise<number> {
  const rows = await selectRows<{ n: string }>(sequelize, 'SELECT count(*)::text AS n FROM effects WHERE label = $label', { label });
  return Number(rows[0]?.n);
}

/** A write whose effect is one row; it answers with the row's id. */
function writeEffect(label: string, pauseMs = 0) {
  return () =>
    effectTransaction(sequelize, async (tx) => {
      const [row] = await selectRows<{ id: number }>(sequelize, 'INSERT INTO effects (label) VALUES ($label) RETURNING id', { label }, tx);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      return `effect ${row?.id}`;
    });
}

const said = (text: string): Said => ({ text });

describe('exactlyOnce with the record in the effect transaction', () => {
  it('runs a write without a key every time', async () => {
    await exactlyOnce(call(undefined), sequelize, SaidCodec, said, writeEffect('no-key'));
    await exactlyOnce(call(undefined), sequelize, SaidCodec, said, writeEffect('no-key'));
    expect(await effects('no-key')).toBe(2);
  });

  it('replays the first answer to a retry, with one effect', async () => {
    const first = await exactlyOnce(call('k-retry'), sequelize, SaidCodec, said, writeEffect('retry'));
    const again = await exactlyOnce(call('k-retry'), sequelize, SaidCodec, said, writeEffect('retry'));
    expect(again).toEqual(first);
    expect(await effects('retry')).toBe(1);
  });

  it('makes a concurrent duplicate wait for the first and replay it', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => exactlyOnce(call('k-concurrent'), sequelize, SaidCodec, said, writeEffect('concurrent', 200))));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await effects('concurrent')).toBe(1);
  });

  it('answers a retry of a committed write from the record, and rolls back what its effect did again', async () => {
    const first = await exactlyOnce(call('k-no-rerun'), sequelize, SaidCodec, said, writeEffect('no-rerun'));
    const again = await exactlyOnce(call('k-no-rerun'), sequelize, SaidCodec, said, () =>
      effectTransaction(sequelize, async (tx) => {
        for (let i = 0; i < 3; i += 1) await execute(sequelize, 'INSERT INTO effects (label) VALUES ($label)', { label: 'no-rerun' }, tx);
        return 'never answered';
      }),
    );
    expect(again).toEqual(first);
    expect(await effects('no-rerun')).toBe(1);
  });

  it('answers a retry whose effect now fails (on what the first request made) from the record', async () => {
    await execute(sequelize, "CREATE UNIQUE INDEX effects_once ON effects (label) WHERE label LIKE 'unique-%'");
    const first = await exactlyOnce(call('k-unique'), sequelize, SaidCodec, said, writeEffect('unique-one'));
    // The same effect again: its insert violates the unique index, an error that is no AppError.
    await expect(exactlyOnce(call('k-unique'), sequelize, SaidCodec, said, writeEffect('unique-one'))).resolves.toEqual(first);
    await expect(exactlyOnce(call('k-unique-other'), sequelize, SaidCodec, said, writeEffect('unique-one'))).rejects.toMatchObject({ code: '23505' });
    expect(await effects('unique-one')).toBe(1);
  });

  it('takes a key past its lifetime as new: the write runs and its answer replaces the old one', async () => {
    const old = await exactlyOnce(call('k-lifetime'), sequelize, SaidCodec, said, writeEffect('lifetime'));
    await execute(sequelize, "UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'k-lifetime'");
    const renewed = await exactlyOnce(call('k-lifetime'), sequelize, SaidCodec, said, writeEffect('lifetime'));
    expect(renewed).not.toEqual(old);
    expect(await effects('lifetime')).toBe(2);
    expect(await exactlyOnce(call('k-lifetime'), sequelize, SaidCodec, said, writeEffect('lifetime'))).toEqual(renewed);
  });

  it('rolls back an effect that fails, and the pooled connections stay usable for plain and keyed writes', async () => {
    const failing = () =>
      effectTransaction(sequelize, async (tx) => {
        await execute(sequelize, "INSERT INTO effects (label) VALUES ('failed')", {}, tx);
        await execute(sequelize, 'SELECT 1 / 0', {}, tx);
        return 'never';
      });
    for (let i = 0; i < 12; i += 1) await expect(exactlyOnce(call(i % 2 === 0 ? undefined : `k-failing-${i}`), sequelize, SaidCodec, said, failing)).rejects.toThrow();
    expect(await effects('failed')).toBe(0);
    await Promise.all(Array.from({ length: 12 }, (_, i) => exactlyOnce(call(i % 2 === 0 ? undefined : `k-after-${i}`), sequelize, SaidCodec, said, writeEffect('after-failures'))));
    expect(await effects('after-failures')).toBe(12);
  });

  it('answers the key with another request idempotency_key_reused', async () => {
    await exactlyOnce(call('k-reused', 'fp-a'), sequelize, SaidCodec, said, writeEffect('reused'));
    await expect(exactlyOnce(call('k-reused', 'fp-b'), sequelize, SaidCodec, said, writeEffect('reused'))).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await effects('reused')).toBe(1);
  });

  it('replays a refusal, and lets a 5xx run again', async () => {
    const refuse = () => effectTransaction(sequelize, async () => Promise.reject(new AppError('no_unassigned_accounts', 'none left')));
    await expect(exactlyOnce(call('k-refused'), sequelize, SaidCodec, said, refuse)).rejects.toMatchObject({ code: 'no_unassigned_accounts' });
    await expect(exactlyOnce(call('k-refused'), sequelize, SaidCodec, said, writeEffect('refused'))).rejects.toMatchObject({ code: 'no_unassigned_accounts' });
    expect(await effects('refused')).toBe(0);

    const fail = () => effectTransaction(sequelize, async () => Promise.reject(new AppError('unavailable', 'try again')));
    await expect(exactlyOnce(call('k-failed'), sequelize, SaidCodec, said, fail)).rejects.toMatchObject({ code: 'unavailable' });
    await exactlyOnce(call('k-failed'), sequelize, SaidCodec, said, writeEffect('failed'));
    expect(await effects('failed')).toBe(1);
  });

  it('commits a refusal\'s own effect with the recorded refusal (CommittedRefusal), once', async () => {
    const rejectOrder = () =>
      effectTransaction(sequelize, async (tx) => {
        await execute(sequelize, "INSERT INTO effects (label) VALUES ('rejected-event')", {}, tx);
        throw new CommittedRefusal(new AppError('order_rejected', 'margin'));
      });
    for (let i = 0; i < 3; i += 1) {
      await expect(exactlyOnce(call('k-rejected'), sequelize, SaidCodec, said, rejectOrder)).rejects.toMatchObject({ code: 'order_rejected', message: 'margin' });
    }
    expect(await effects('rejected-event')).toBe(1);
  });

  it('replays the first answer when the retry would now be refused, or would refuse with effects', async () => {
    const first = await exactlyOnce(call('k-then-refused'), sequelize, SaidCodec, said, writeEffect('then-refused'));
    const refuseEarly = () => Promise.reject(new AppError('conflict', 'already done'));
    await expect(exactlyOnce(call('k-then-refused'), sequelize, SaidCodec, said, refuseEarly)).resolves.toEqual(first);
    const refuseWithEvent = () =>
      effectTransaction(sequelize, async (tx) => {
        await execute(sequelize, "INSERT INTO effects (label) VALUES ('then-refused-event')", {}, tx);
        throw new CommittedRefusal(new AppError('order_rejected', 'margin'));
      });
    await expect(exactlyOnce(call('k-then-refused'), sequelize, SaidCodec, said, refuseWithEvent)).resolves.toEqual(first);
    expect(await effects('then-refused-event')).toBe(0);
  });

  it('runs an atomic effect without a transaction when there is no key, and records it when there is', async () => {
    const insert = () => atomicEffect(sequelize, async (tx) => {
      const [row] = await selectRows<{ id: number }>(sequelize, "INSERT INTO effects (label) VALUES ('atomic') RETURNING id", {}, tx);
      return `effect ${row?.id}`;
    });
    await exactlyOnce(call(undefined), sequelize, SaidCodec, said, insert);
    const keyed = await exactlyOnce(call('k-atomic'), sequelize, SaidCodec, said, insert);
    expect(await exactlyOnce(call('k-atomic'), sequelize, SaidCodec, said, insert)).toEqual(keyed);
    expect(await effects('atomic')).toBe(2);
  });

  it('deletes records past the horizon and keeps younger ones', async () => {
    await exactlyOnce(call('k-old'), sequelize, SaidCodec, said, writeEffect('old'));
    await execute(sequelize, "UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'k-old'");
    const before = await selectRows<{ n: string }>(sequelize, 'SELECT count(*)::text AS n FROM idempotency_records');
    expect(await deleteExpiredIdempotencyRecords(sequelize)).toBe(1);
    const after = await selectRows<{ n: string }>(sequelize, 'SELECT count(*)::text AS n FROM idempotency_records');
    expect(Number(after[0]?.n)).toBe(Number(before[0]?.n) - 1);
    // Past its lifetime a key is new again.
    await exactlyOnce(call('k-old'), sequelize, SaidCodec, said, writeEffect('old'));
    expect(await effects('old')).toBe(2);
  });

  it('is a retention task whose horizon never undercuts the key lifetime', async () => {
    await exactlyOnce(call('k-retained'), sequelize, SaidCodec, said, writeEffect('retained'));
    await exactlyOnce(call('k-expired'), sequelize, SaidCodec, said, writeEffect('expired'));
    await execute(sequelize, "UPDATE idempotency_records SET created_at = now() - interval '30 hours' WHERE idempotency_key = 'k-expired'");
    const task = idempotencyRecordsRetention(sequelize, 60_000);
    expect(task.horizonMs).toBe(24 * 60 * 60 * 1000);
    expect(await task.run(new Date(Date.now() - task.horizonMs))).toBe(1);
    const left = await selectRows<{ idempotency_key: string }>(sequelize, "SELECT idempotency_key FROM idempotency_records WHERE idempotency_key IN ('k-retained', 'k-expired')");
    expect(left.map((r) => r.idempotency_key)).toEqual(['k-retained']);
  });
});
