/**
 * Issue 12 item 3, a rolling restart under load, as Kubernetes runs one: two replicas each of the
 * gateway, the accounts service and the webhooks service (real processes), the services behind one
 * static address list per service (`ipv4:127.0.0.1:a,127.0.0.1:b`, the kit's client balances
 * round_robin), the gateways behind the test's load balancer. One replica of each is stopped with
 * SIGTERM and replaced, then the other, while a steady read and write load runs:
 *
 *  - zero failed reads (a read is never retried: any answer but 200 counts);
 *  - zero lost or duplicated writes (writes carry an Idempotency-Key and are retried on 5xx and
 *    connection errors; the results are checked through the API and the event feed).
 *
 * The load balancer plays the Service: a gateway leaves the rotation when its pod starts
 * terminating, and gets SIGTERM after the preStop pause (PRESTOP_MS here, 5 s in deploy/k8s).
 *
 * Ports 19210-19217 are fixed, outside the ephemeral range: a replaced replica takes its
 * predecessor's port, as a pod keeps its Service's port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createHealthChecker } from '@propdesk/kit';
import { createTestDatabase, REPOSITORY_ROOT, waitUntil, type TestDatabase } from '@propdesk/kit/testing';
import { createTenant, duplicates, type FeedEvent, type Tenant } from './retrying-client';

jest.setTimeout(300_000);

const PORTS = { auth: 19210, accounts: [19211, 19212], webhooks: [19213, 19214], gateway: [19215, 19216], panel: 19217 };
const PRESTOP_MS = 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Replica {
  name: string;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: () => string;
}

let db: TestDatabase;
let env: NodeJS.ProcessEnv;
const replicas: Replica[] = [];
/** When each replica started and ended (ms since the epoch, as the logs' `time`), for a failure's report. */
const timeline: string[] = [];

function spawnReplica(name: 'auth' | 'accounts' | 'webhooks' | 'gateway', port: number): Replica {
  const entry = name === 'gateway' ? 'gateway/dist/main.js' : `services/${name}/dist/main.js`;
  const portVar = { auth: 'AUTH_GRPC_PORT', accounts: 'ACCOUNTS_GRPC_PORT', webhooks: 'WEBHOOKS_GRPC_PORT', gateway: 'PORT' }[name];
  const child = spawn(process.execPath, [path.join(REPOSITORY_ROOT, entry)], { env: { ...env, [portVar]: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const label = `${name}:${port}`;
  timeline.push(`${Date.now()} ${label} pid ${child.pid} started`);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      timeline.push(`${Date.now()} ${label} pid ${child.pid} exited (${signal ?? code})`);
      resolve(code);
    }),
  );
  const replica = { name: label, port, child, exited, log: () => log };
  replicas.push(replica);
  return replica;
}

async function untilReady(replica: Replica, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (replica.child.exitCode !== null) throw new Error(`${replica.name} exited:\n${replica.log().slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${replica.name} not ready:\n${replica.log().slice(-3000)}`);
    await sleep(200);
  }
}

async function grpcServing(port: number): Promise<boolean> {
  const checker = createHealthChecker(`127.0.0.1:${port}`);
  try {
    return await checker.check(1000);
  } finally {
    checker.close();
  }
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function startReplica(name: 'auth' | 'accounts' | 'webhooks' | 'gateway', port: number): Promise<Replica> {
  const replica = spawnReplica(name, port);
  await untilReady(replica, () => (name === 'gateway' ? httpOk(`http://127.0.0.1:${port}/healthz`) : grpcServing(port)));
  return replica;
}

/** The gateways' load balancer: round robin over the gateways in rotation. */
class LoadBalancer {
  private readonly inRotation = new Set<number>(PORTS.gateway);
  private next = 0;

  pick(): string {
    const ports = [...this.inRotation];
    const port = ports[this.next % ports.length];
    this.next += 1;
    return `http://127.0.0.1:${port}`;
  }

  remove(port: number): void {
    this.inRotation.delete(port);
  }

  add(port: number): void {
    this.inRotation.add(port);
  }
}

/** SIGTERM and wait for the exit; the drain must end it well within terminationGracePeriodSeconds. */
async function terminate(replica: Replica): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  replica.child.kill('SIGTERM');
  const code = await replica.exited;
  return { code, ms: Date.now() - started };
}

beforeAll(async () => {
  db = await createTestDatabase('pd_faults_rolling');
  env = {
    ...process.env,
    DATABASE_URL: db.url,
    GRPC_HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '5000',
    CURSOR_SECRET: randomBytes(24).toString('hex'),
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    SIMULATE_MARKET: 'false',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
    AUTH_GRPC_ADDRESS: `127.0.0.1:${PORTS.auth}`,
    ACCOUNTS_GRPC_ADDRESS: `ipv4:${PORTS.accounts.map((p) => `127.0.0.1:${p}`).join(',')}`,
    WEBHOOKS_GRPC_ADDRESS: `ipv4:${PORTS.webhooks.map((p) => `127.0.0.1:${p}`).join(',')}`,
    PANEL_URL: `http://127.0.0.1:${PORTS.panel}`,
    RATE_LIMIT_READ_PER_MIN: '1000000',
    RATE_LIMIT_WRITE_PER_MIN: '1000000',
    RATE_LIMIT_IP_PER_MIN: '1000000',
  };
  delete env.REDIS_URL;
  delete env.JEST_WORKER_ID;
  await startReplica('auth', PORTS.auth);
  for (const port of PORTS.accounts) await startReplica('accounts', port);
  for (const port of PORTS.webhooks) await startReplica('webhooks', port);
  for (const port of PORTS.gateway) await startReplica('gateway', port);
});

afterAll(async () => {
  // ROLLING_LOG_DIR=/tmp/x keeps every replica's log there (for a failed run).
  if (process.env.ROLLING_LOG_DIR) {
    fs.mkdirSync(process.env.ROLLING_LOG_DIR, { recursive: true });
    for (const replica of replicas) fs.writeFileSync(path.join(process.env.ROLLING_LOG_DIR, `${replica.name.replace(':', '-')}-${replica.child.pid}.log`), replica.log());
  }
  for (const replica of replicas) {
    if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGTERM');
  }
  const timers: NodeJS.Timeout[] = [];
  const giveUp = new Promise<void>((resolve) => timers.push(setTimeout(resolve, 20_000)));
  await Promise.all(replicas.map((r) => Promise.race([r.exited, giveUp])));
  timers.forEach(clearTimeout);
  for (const replica of replicas) if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL');
  await db?.drop();
});

interface Load {
  reads: number;
  failedReads: string[];
  writes: Array<{ kind: 'claim' | 'endpoint' | 'provision'; key: string; status: number; body: Record<string, unknown> }>;
  /** Write attempts answered 5xx or cut, then retried with their key. */
  retries: number;
  stop(): Promise<void>;
}

/** Steady reads (never retried) and writes (retried with their key), until stopped. */
function startLoad(lb: LoadBalancer, tenant: Tenant, numbers: number[]): Load {
  const load: Load = { reads: 0, failedReads: [], writes: [], retries: 0, stop: async () => undefined };
  let running = true;
  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${tenant.token}`, ...extra });
  const reader = async (i: number) => {
    const paths = ['/v1/accounts?limit=20', `/v1/accounts/${numbers[i % numbers.length]}`, '/v1/webhooks', '/v1/events?limit=10'];
    for (let n = 0; running; n += 1) {
      const pathname = paths[(i + n) % paths.length] as string;
      try {
        const res = await fetch(`${lb.pick()}${pathname}`, { headers: headers(), signal: AbortSignal.timeout(10_000) });
        const text = await res.text();
        if (res.status !== 200) load.failedReads.push(`${pathname}: ${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        load.failedReads.push(`${pathname}: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
      }
      load.reads += 1;
      await sleep(20);
    }
  };
  const write = async (kind: 'claim' | 'endpoint' | 'provision', key: string, method: string, pathname: string, body: unknown) => {
    for (;;) {
      try {
        const res = await fetch(`${lb.pick()}${pathname}`, {
          method,
          headers: headers({ 'idempotency-key': key, 'content-type': 'application/json' }),
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        if (res.status < 500) {
          load.writes.push({ kind, key, status: res.status, body: JSON.parse(text) as Record<string, unknown> });
          return;
        }
      } catch {
        /* a connection error: retried with the same key */
      }
      load.retries += 1;
      await sleep(100);
    }
  };
  const writer = async (i: number) => {
    for (let n = 0; running; n += 1) {
      const which = n % 3;
      if (which === 0) await write('claim', `claim-${i}-${n}`, 'POST', '/v1/accounts/claim', { name: `Roll ${i}-${n}`, email: `roll-${i}-${n}@example.com` });
      else if (which === 1) await write('endpoint', `endpoint-${i}-${n}`, 'POST', '/v1/webhooks', { url: `https://127.0.0.1:9/hook-${i}-${n}`, events: ['account.created'] });
      else await write('provision', `provision-${i}-${n}`, 'POST', '/v1/accounts', { count: 1 });
      await sleep(50);
    }
  };
  const loops = [...Array.from({ length: 4 }, (_, i) => reader(i)), ...Array.from({ length: 2 }, (_, i) => writer(i))];
  load.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return load;
}

test('a rolling restart of every replicated process under load: zero failed reads, zero lost or duplicated writes', async () => {
  const tenant = await createTenant(`127.0.0.1:${PORTS.auth}`, 5000);
  try {
    const lb = new LoadBalancer();
    const seeded = await fetch(`${lb.pick()}/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 100 }),
    });
    expect(seeded.status).toBe(201);
    const numbers = ((await seeded.json()) as { data: Array<{ number: number }> }).data.map((a) => a.number);

    const load = startLoad(lb, tenant, numbers);
    await waitUntil(() => load.reads >= 20 && load.writes.length >= 3, { what: 'the load running' });
    const drains: Array<{ name: string; code: number | null; ms: number }> = [];
    // Replica by replica, as a Deployment's rolling update: stop one, start its replacement.
    for (const index of [0, 1]) {
      for (const name of ['accounts', 'webhooks'] as const) {
        const old = replicas.find((r) => r.name === `${name}:${PORTS[name][index]}` && r.child.exitCode === null && r.child.signalCode === null);
        if (!old) throw new Error(`no running ${name} replica ${index}`);
        drains.push({ name: old.name, ...(await terminate(old)) });
        await sleep(500);
        await startReplica(name, PORTS[name][index] as number);
        await sleep(1000);
      }
      const port = PORTS.gateway[index] as number;
      const gateway = replicas.find((r) => r.name === `gateway:${port}` && r.child.exitCode === null && r.child.signalCode === null);
      if (!gateway) throw new Error('no running gateway');
      lb.remove(port);
      await sleep(PRESTOP_MS);
      drains.push({ name: gateway.name, ...(await terminate(gateway)) });
      await startReplica('gateway', port);
      lb.add(port);
      await sleep(1000);
    }
    await sleep(1000);
    await load.stop();

    if (load.failedReads.length > 0) {
      // What the gateways said of them (a missed deadline shows its ms), what the services warned
      // of, and when each replica started and ended, for whoever reads the failure.
      const lines = (from: Replica[], keep: RegExp) => from.flatMap((r) => r.log().split('\n').filter((line) => keep.test(line)).map((line) => `${r.name} ${line}`));
      const gateways = replicas.filter((r) => r.name.startsWith('gateway'));
      const answers = lines(gateways, /"status":5\d\d/);
      const warnings = lines(replicas.filter((r) => !gateways.includes(r)), /"level":[456]0,/);
      process.stderr.write(
        `failed reads; the gateways' 5xx answers:\n${answers.join('\n')}\nthe services' warnings and errors:\n${warnings.join('\n')}\nthe replicas:\n${timeline.join('\n')}\n`,
      );
    }
    expect(load.failedReads).toEqual([]);
    expect(load.reads).toBeGreaterThan(100);
    // Drains end on their own (exit 0), well within the 30 s grace period of deploy/k8s.
    for (const drain of drains) {
      expect(drain.code).toBe(0);
      expect(drain.ms).toBeLessThan(15_000);
    }

    // Writes: every one answered, and exactly one effect each.
    const api = (pathname: string) => fetch(`${lb.pick()}${pathname}`, { headers: { authorization: `Bearer ${tenant.token}` } }).then((r) => r.json());
    const all = async <T>(pathname: string): Promise<T[]> => {
      const items: T[] = [];
      let cursor: string | null = null;
      do {
        const sep = pathname.includes('?') ? '&' : '?';
        const page = (await api(`${pathname}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as { data: T[]; next_cursor: string | null };
        items.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return items;
    };
    const byKind = (kind: string) => load.writes.filter((w) => w.kind === kind);
    expect(load.writes.filter((w) => w.status >= 400 && !(w.kind === 'claim' && w.status === 409))).toEqual([]);
    const claims = byKind('claim').filter((w) => w.status === 200);
    const claimed = claims.map((w) => (w.body.account as { number: number }).number);
    expect(duplicates(claimed)).toEqual([]);
    const accounts = await all<{ number: number; trader_id: string | null }>('/v1/accounts');
    expect(accounts.filter((a) => a.trader_id !== null).map((a) => a.number).sort((a, b) => a - b)).toEqual([...claimed].sort((a, b) => a - b));
    const provisioned = byKind('provision').flatMap((w) => (w.body.data as Array<{ number: number }>).map((a) => a.number));
    expect(accounts.length).toBe(numbers.length + provisioned.length);
    // The feed shows an event once every older transaction in the database has ended (it never skips
    // one that commits late), so the last few may take a moment to appear; wait for them, then count.
    let events = await all<FeedEvent>('/v1/events');
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; events = await all<FeedEvent>('/v1/events')) {
      if (events.filter((e) => e.type === 'account.created').length >= accounts.length) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(events.filter((e) => e.type === 'account.created').length).toBe(accounts.length);
    const assigned = events.filter((e) => e.type === 'account.assigned').map((e) => e.data.account);
    expect(duplicates(assigned)).toEqual([]);
    expect(assigned.length).toBe(claimed.length);
    const endpoints = await all<{ id: string }>('/v1/webhooks');
    expect(endpoints.map((e) => e.id).sort()).toEqual(byKind('endpoint').map((w) => w.body.id as string).sort());

    process.stdout.write(
      `rolling restart (${drains.map((d) => `${d.name} drained in ${d.ms} ms`).join(', ')}): ${load.reads} reads, 0 failed; ` +
        `${load.writes.length} writes (${claims.length} claims, ${provisioned.length} provisioned, ${endpoints.length} endpoints; ${load.retries} retried attempts), 0 lost, 0 duplicated\n`,
    );
  } finally {
    tenant.auth.close();
  }
});
