import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createLogger, createTestDatabase, Mode, testServerUrl, type TestDatabase } from '@propdesk/kit';
import { start } from '../main';
import { startFakeAccounts, type FakeAccounts } from '../test/fake-accounts';
import { CURSOR_SECRET, WEBHOOK_SECRET_KEY } from '../test/harness';
import { generateCertificate, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificate } from '../test/https-receiver';
import { startTcpProxy } from '../test/tcp-proxy';
import { createWebhooksClient } from '../test/webhooks-client';
import { verifyWebhook } from '../verify';

const REPO_ROOT = join(__dirname, '..', '..', '..', '..');
const MAIN_JS = join(REPO_ROOT, 'services', 'webhooks', 'dist', 'main.js');

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
  execFileSync('npx', ['tsc', '-b', 'services/webhooks'], { cwd: REPO_ROOT, stdio: 'ignore' });
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
function spawnService(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(process.execPath, [MAIN_JS], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('webhooks child did not start')), 30_000);
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'webhooks service listening') {
          clearTimeout(timer);
          resolve({ child, address: `127.0.0.1:${entry.port}` });
        }
      } catch {
        /* not a log line */
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`webhooks child exited early (${code})`));
    });
  });
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

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
    let running = await spawnService(env);
    const client = createWebhooksClient(running.address);
    const { secret } = await client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: receiver.url('/crash'), events: [] });
    client.close();
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 1) ids.push(accounts.publish({ type: 'account.created', organizationId: org, data: { account: i } }).id);
    await receiver.waitFor(200, '/crash', 60_000);
    await kill(running.child, 'SIGKILL');
    const atKill = new Set(receiver.received('/crash').map((r) => r.headers['x-service-id'])).size;
    expect(atKill).toBeLessThan(1000);
    running = await spawnService(env);
    try {
      await waitForIds('/crash', ids, 90_000);
      expectEveryEventOnce(receiver.received('/crash'), ids, secret);
    } finally {
      await kill(running.child, 'SIGTERM');
    }
  }, 180_000);

  it('PostgreSQL going away during delivery loses nothing once it is back', async () => {
    const target = new URL(testServerUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const service = await start(baseEnv(viaProxy.toString()), { logger: createLogger('webhooks-rel', { level: 'silent' }) });
    const client = createWebhooksClient(service.address);
    try {
      const org = randomUUID();
      const { secret } = await client.call.createEndpoint({ organizationId: org, mode: Mode.MODE_LIVE, url: receiver.url('/db-outage'), events: [] });
      const ids: string[] = [];
      for (let i = 0; i < 300; i += 1) ids.push(accounts.publish({ type: 'position.opened', organizationId: org, data: { account: i } }).id);
      await receiver.waitFor(30, '/db-outage', 30_000);
      proxy.down();
      // Events committed upstream while the database is unreachable must still be delivered afterwards.
      for (let i = 0; i < 50; i += 1) ids.push(accounts.publish({ type: 'position.closed', organizationId: org, data: { account: i } }).id);
      await new Promise((r) => setTimeout(r, 2000));
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
