import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, Mode } from '@propdesk/kit';
import {
  createTestDatabase,
  databaseUrlVia,
  generateCertificate,
  REPOSITORY_ROOT,
  spawnService,
  startHttpsReceiver,
  startTcpProxy,
  stopProcess,
  testServerUrl,
  waitUntil,
  type HttpsReceiver,
  type ReceivedRequest,
  type TestCertificate,
  type TestDatabase,
} from '@propdesk/kit/testing';
import { start } from '../main';
import { startFakeAccounts, type FakeAccounts } from '../test/fake-accounts';
import { CURSOR_SECRET, WEBHOOK_SECRET_KEY } from '../test/harness';
import { createWebhooksClient } from '../test/webhooks-client';
import { verifyWebhook } from '../verify';

const MAIN_JS = join(REPOSITORY_ROOT, 'services', 'webhooks', 'dist', 'main.js');

let db: TestDatabase;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let accounts: FakeAccounts;

function baseEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl,
    WEBHOOKS_GRPC_PORT: '0',
    ACCOUNTS_GRPC_ADDRESS: accounts.address,
    CURSOR_SECRET,
    WEBHOOK_SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_CA_FILE: cert.certFile,
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_POLL_INTERVAL_MS: '200',
  };
}

beforeAll(async () => {
  // The SIGKILL test runs the compiled service as a child process.
  execFileSync('npx', ['tsc', '-b', 'services/webhooks'], { cwd: REPOSITORY_ROOT, stdio: 'ignore' });
  db = await createTestDatabase('pd_webhooks_rel');
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  accounts = await startFakeAccounts();
}, 120_000);

afterAll(async () => {
  await accounts?.stop();
  await receiver?.close();
  cert?.remove();
  await db?.drop();
});

/** Starts `node services/webhooks/dist/main.js` and resolves with its gRPC address once it listens. */
const spawnWebhooks = (env: NodeJS.ProcessEnv) => spawnService(MAIN_JS, { env, listening: 'webhooks service listening' });

/** Every event id at least once; every copy of one id carries the same body, correctly signed. */
function expectEveryEventOnce(got: ReceivedRequest[], ids: string[], secret: string): void {
  const bodies = new Map<string, Set<string>>();
  for (const req of got) {
    const id = String(req.headers['x-service-id']);
    const verified = verifyWebhook({ rawBody: req.body, headers: req.headers, secret });
    expect(verified.ok && verified.event.id).toBe(id);
    bodies.set(id, (bodies.get(id) ?? new Set()).add(req.body));
  }
  expect(ids.filter((id) => !bodies.has(id))).toEqual([]);
  for (const id of ids) expect(bodies.get(id)!.size).toBe(1);
}

async function waitForIds(path: string, ids: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const want = new Set(ids);
  while (Date.now() < deadline) {
    const seen = new Set(receiver.received(path).map((r) => String(r.headers['x-service-id'])));
    if ([...want].every((id) => seen.has(id))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seen = new Set(receiver.received(path).map((r) => String(r.headers['x-service-id'])));
  throw new Error(`missing ${[...want].filter((id) => !seen.has(id)).length} of ${ids.length} events`);
}

describe('reliability', () => {
  it('SIGKILL in the middle of 1,000 events loses nothing: after a restart every event arrives, duplicates identical', async () => {
    const org = randomUUID();
    const env = baseEnv(db.url);
    let running = await spawnWebhooks(env);
    const client = createWebhooksClient(running.address);
    const { secret } = await client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: receiver.url('/crash'), events: [] });
    client.close();
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 1) ids.push(accounts.publish({ type: 'account.created', organizationId: org, data: { account: i } }).id);
    await receiver.waitFor(200, '/crash', 60_000);
    await stopProcess(running.child, 'SIGKILL');
    const atKill = new Set(receiver.received('/crash').map((r) => r.headers['x-service-id'])).size;
    expect(atKill).toBeLessThan(1000);
    running = await spawnWebhooks(env);
    try {
      await waitForIds('/crash', ids, 90_000);
      expectEveryEventOnce(receiver.received('/crash'), ids, secret);
    } finally {
      await stopProcess(running.child, 'SIGTERM');
    }
  }, 180_000);

  it('PostgreSQL going away during delivery loses nothing once it is back', async () => {
    const target = new URL(testServerUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const logged: string[] = [];
    const logLines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString('utf8'));
        done();
      },
    });
    const service = await start(baseEnv(databaseUrlVia(db.url, proxy.port)), { logger: createLogger('webhooks-rel', { level: 'warn', destination: logLines }) });
    const client = createWebhooksClient(service.address);
    try {
      const org = randomUUID();
      const { secret } = await client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: receiver.url('/db-outage'), events: [] });
      const ids: string[] = [];
      for (let i = 0; i < 300; i += 1) ids.push(accounts.publish({ type: 'position.opened', organizationId: org, data: { account: i } }).id);
      await receiver.waitFor(30, '/db-outage', 30_000);
      const refusedBefore = proxy.refused;
      proxy.down();
      // Events committed upstream while the database is unreachable must still be delivered afterwards.
      for (let i = 0; i < 50; i += 1) ids.push(accounts.publish({ type: 'position.closed', organizationId: org, data: { account: i } }).id);
      // The outage lasts until the service has felt it: its event stream cut, and a reconnection refused.
      await waitUntil(() => logged.some((line) => line.includes('"event stream interrupted"')) && proxy.refused > refusedBefore, { what: 'the outage felt' });
      proxy.up();
      await waitForIds('/db-outage', ids, 90_000);
      expectEveryEventOnce(receiver.received('/db-outage'), ids, secret);
    } finally {
      client.close();
      proxy.up();
      await service.stop();
      await proxy.close();
    }
  }, 180_000);
});
