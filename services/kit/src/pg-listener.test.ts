import { Client } from 'pg';
import { createLogger } from './logger';
import { listenToChannel, type ChannelListener } from './pg-listener';
import { createTestDatabase, startTcpProxy, waitUntil, type TestDatabase } from './testing';

const logger = createLogger('pg-listener-test', { level: 'silent' });

const until = (condition: () => boolean) => waitUntil(condition, { timeoutMs: 10_000, intervalMs: 20 });

describe('LISTEN with reconnect', () => {
  let db: TestDatabase;
  let admin: Client;
  const open: ChannelListener[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('pd_kit_listen');
    admin = new Client({ connectionString: db.url });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((listener) => listener.close()));
  });
  afterAll(async () => {
    await admin.end();
    await db.drop();
  });

  function start(applicationName: string) {
    const seen = { payloads: [] as string[], listening: 0, lost: 0 };
    const listener = listenToChannel({
      databaseUrl: db.url,
      channel: 'kit_test_channel',
      applicationName,
      logger,
      retry: { initialMs: 20, maxMs: 100 },
      onNotification: (payload) => seen.payloads.push(payload),
      onListening: () => (seen.listening += 1),
      onLost: () => (seen.lost += 1),
    });
    open.push(listener);
    return { listener, seen };
  }

  it('hands over the payloads of its channel once listening', async () => {
    const { listener, seen } = start('kit-listen-a');
    await listener.listening;
    expect(seen.listening).toBe(1);
    await admin.query("SELECT pg_notify('kit_test_channel', 'one'), pg_notify('other_channel', 'x'), pg_notify('kit_test_channel', '')");
    await until(() => seen.payloads.length === 2);
    expect(seen.payloads).toEqual(['one', '']);
  });

  it('reconnects after its connection is killed, and says what may have been missed', async () => {
    const { listener, seen } = start('kit-listen-b');
    await listener.listening;
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kit-listen-b'");
    await until(() => seen.listening === 2);
    expect(seen.lost).toBe(1);
    await admin.query("SELECT pg_notify('kit_test_channel', 'after')");
    await until(() => seen.payloads.includes('after'));
  });

  it('keeps retrying a database it cannot reach, and stops when closed', async () => {
    // A port that resets every connection and counts them.
    const nowhere = await startTcpProxy('127.0.0.1', 1);
    nowhere.down();
    try {
      const unreachable = listenToChannel({
        databaseUrl: `postgres://postgres@127.0.0.1:${nowhere.port}/none`,
        channel: 'kit_test_channel',
        applicationName: 'kit-listen-c',
        logger,
        retry: { initialMs: 10, maxMs: 20 },
        onNotification: () => undefined,
      });
      await until(() => nowhere.refused >= 3);
      await unreachable.close();
      await expect(unreachable.listening).rejects.toThrow(/stopped before LISTEN/);
    } finally {
      await nowhere.close();
    }
  });

  it('after close, neither listens nor reconnects', async () => {
    const { listener, seen } = start('kit-listen-d');
    await listener.listening;
    await listener.close();
    await admin.query("SELECT pg_notify('kit_test_channel', 'late')");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'kit-listen-d'");
    expect(rows[0].n).toBe(0);
    expect(seen.payloads).toEqual([]);
    expect(seen.lost).toBe(0);
  });

  it('refuses a channel name that is not a plain identifier', () => {
    expect(() =>
      listenToChannel({ databaseUrl: db.url, channel: 'x; DROP TABLE y', applicationName: 'x', logger, onNotification: () => undefined }),
    ).toThrow(/bad channel/);
  });
});
