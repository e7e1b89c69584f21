/**
 * SPEC 3, "Stopping", with the real processes of `npm start`: every way a development stack ends
 * must leave no PropDesk process behind and its ports free within 20 s, so that the next start
 * succeeds. Each test starts the stack on the same ports right after the previous one stopped it,
 * so every start after the first is also "the next npm start" of the way in before it.
 *
 * Ports 18420-18424 (local PostgreSQL) and 18430-18434 (embedded PostgreSQL; 18435-18439 for a
 * second start beside it): fixed, outside the ephemeral range, so the "same ports again" check
 * cannot be spoiled by an outgoing connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { BUILT_PANEL, createTestDatabase, holdTestLock, REPOSITORY_ROOT, waitUntil, type TestDatabase } from '@propdesk/kit/testing';
import {
  describeProcess,
  findProcess,
  killLeftovers,
  launch,
  portsFrom,
  shutdownOrder,
  stackProcesses,
  STOP_ORDER,
  waitUntilGone,
  type LaunchOptions,
  type StackPorts,
  type StackRun,
} from './stack-process';

jest.setTimeout(180_000);

const STOP_WITHIN_MS = 20_000;
let current: StackRun | undefined;

async function start(options: LaunchOptions): Promise<StackRun> {
  // npm start builds the panel again, emptying its directory first: suites serving it wait meanwhile.
  const build = options.via === 'node' ? undefined : await holdTestLock(BUILT_PANEL, 'exclusive');
  try {
    current = launch(options);
    await current.ready;
  } finally {
    await build?.release();
  }
  return current;
}

async function expectAllGone(run: StackRun, extraPorts: number[] = []): Promise<void> {
  const left = await waitUntilGone(run, STOP_WITHIN_MS + 2_000, extraPorts);
  const leftovers = { processes: left.processes.map(describeProcess), busyPorts: left.busyPorts };
  if (leftovers.processes.length > 0 || leftovers.busyPorts.length > 0) {
    // The stack's own account of its stop, for the failure message.
    leftovers.processes.push(`log tail:\n${run.stderr().slice(-3000)}`);
  }
  expect(leftovers).toEqual({ processes: [], busyPorts: [] });
  expect(left.ms).toBeLessThanOrEqual(STOP_WITHIN_MS);
  await run.exited;
}

/** A start that cannot go on: it ends by itself within 20 s with exit code 1, saying 'PropDesk stopped'. */
async function expectRefused(run: StackRun): Promise<void> {
  const ended = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), STOP_WITHIN_MS);
    void run.exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  expect({ ended, log: ended ? '' : run.stderr().slice(-2000) }).toEqual({ ended: true, log: '' });
  expect(run.child.exitCode).toBe(1);
  expect(run.stdout()).toContain('PropDesk stopped');
}

function expectStoppedInOrder(run: StackRun): void {
  expect(shutdownOrder(run.stderr())).toEqual(STOP_ORDER);
  expect(run.stdout()).toContain('PropDesk stopped');
}

afterEach(async () => {
  // A failed test must not leave its stack to the next one.
  if (current) await killLeftovers(current);
  current = undefined;
});

beforeAll(() => {
  // The `node scripts/start.mjs` cases run what npm runs after its build.
  execFileSync('npx', ['tsc', '-b'], { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
});

describe('stopping a stack on the local PostgreSQL', () => {
  const ports = portsFrom(18420);
  let db: TestDatabase;
  let env: LaunchOptions['env'];

  beforeAll(async () => {
    db = await createTestDatabase('pd_stopping');
    env = { DATABASE_URL: db.url, REDIS_URL: undefined, PROPDESK_DATA_DIR: undefined, SIMULATE_MARKET: undefined };
  });

  afterAll(async () => {
    await db?.drop();
  });

  test('Ctrl-C (SIGINT to the process group of npm start) stops every process in order', async () => {
    const run = await start({ via: 'npm', ports, env });
    process.kill(-run.child.pid!, 'SIGINT');
    await expectAllGone(run);
    expectStoppedInOrder(run);
  });

  test('SIGTERM to the npm start process (a process manager) stops every process in order', async () => {
    const run = await start({ via: 'npm', ports, env });
    process.kill(run.child.pid!, 'SIGTERM');
    await expectAllGone(run);
    expectStoppedInOrder(run);
  });

  test('npm SIGKILLed: the stack notices its parent is gone and stops in order', async () => {
    const run = await start({ via: 'npm', ports, env });
    process.kill(run.child.pid!, 'SIGKILL');
    await expectAllGone(run);
    expectStoppedInOrder(run);
  });

  test('the supervisor SIGKILLed: every service ends on its own', async () => {
    const run = await start({ via: 'node', ports, env });
    const supervisor = findProcess(run, /scripts\/stack\.mjs/);
    process.kill(supervisor.pid, 'SIGKILL');
    await expectAllGone(run);
  });

  test('output closed (npm start 2>&1 | grep -m1 ready), then SIGTERM to npm: the stack stops', async () => {
    const run = await start({
      via: 'sh',
      shellCommand: `npm start 2>&1 | grep -m1 'PropDesk ready'`,
      ports,
      env,
    });
    // grep has printed the ready line and exits: nobody reads npm's output any more.
    await waitUntil(() => !stackProcesses(run.marker, run.seen).some((p) => /^grep /.test(p.command)), { timeoutMs: 10_000, what: 'the pipeline\'s grep gone' });
    const npm = findProcess(run, /^npm start/);
    process.kill(npm.pid, 'SIGTERM');
    await expectAllGone(run);
  });

  test('output closed, then more output (a request is logged): the stack stops in order on its own', async () => {
    const run = await start({ via: 'node', ports, env });
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();
    // The request makes the stack log a line. The log line of the supervisor's own readiness
    // request may reach the closed output first (it is relayed after the ready line): then the
    // stack is already stopping and this request is refused. Either way it must stop on its own.
    await fetch(`http://127.0.0.1:${ports.PORT}/healthz`).catch(() => undefined);
    await expectAllGone(run);
  });

  test('after all of these, the stack starts and stops once more', async () => {
    const run = await start({ via: 'node', ports, env });
    process.kill(run.child.pid!, 'SIGTERM');
    await expectAllGone(run);
    expectStoppedInOrder(run);
  });
});

describe('a start that cannot go on', () => {
  const ports = portsFrom(18420);
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('pd_stopping_refused');
  });

  afterAll(async () => {
    await db?.drop();
  });

  /** The stack on the local PostgreSQL with `changes` on top, left to end by itself (the file's afterEach kills what it leaves). */
  const refusedStart = (changes: { ports?: Partial<StackPorts>; env?: LaunchOptions['env'] }): StackRun => {
    current = launch({ via: 'node', ports: { ...ports, ...changes.ports }, env: { DATABASE_URL: db.url, REDIS_URL: undefined, PROPDESK_DATA_DIR: undefined, ...changes.env } });
    return current;
  };

  test('two components given one port (PORT set to the panel\'s): refused before anything starts, naming both', async () => {
    const run = refusedStart({ ports: { PANEL_PORT: ports.PORT } });
    await expectRefused(run);
    expect(run.stderr()).toContain(`PORT and PANEL_PORT are both ${ports.PORT}: give each component a port of its own`);
    expect(run.stderr()).not.toContain('"name":"auth"');
    await expectAllGone(run);
  });

  test('a service whose configuration is wrong (LOG_LEVEL=verbose): said once, not restarted, the stack stops', async () => {
    const run = refusedStart({ env: { LOG_LEVEL: 'verbose' } });
    await expectRefused(run);
    const log = run.stderr();
    expect(log.split('invalid configuration: LOG_LEVEL').length - 1).toBe(1);
    expect(log).toContain('[propdesk] auth cannot start with this configuration: stopping the stack');
    expect(log).not.toContain('restarting auth');
    await expectAllGone(run);
  });
});

describe('stopping a stack on the embedded PostgreSQL', () => {
  const ports = portsFrom(18430);
  let dataDir: string;
  let env: LaunchOptions['env'];
  const pgPort = () => Number(fs.readFileSync(path.join(dataDir, 'pg-port'), 'utf8'));

  beforeAll(() => {
    // One data directory for the whole block: the cluster's first initialisation is the slow part.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'propdesk-stopping-'));
    // Run as root, PostgreSQL runs as its own user and must reach the directory.
    fs.chmodSync(dataDir, 0o755);
    env = { DATABASE_URL: undefined, REDIS_URL: undefined, PROPDESK_DATA_DIR: dataDir, SIMULATE_MARKET: undefined };
  });

  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the supervisor SIGKILLed: the services and PostgreSQL end on their own', async () => {
    const run = await start({ via: 'node', ports, env });
    const postmaster = findProcess(run, /bin\/postgres -D/);
    expect(postmaster.command).toContain(dataDir);
    process.kill(findProcess(run, /scripts\/stack\.mjs/).pid, 'SIGKILL');
    await expectAllGone(run, [pgPort()]);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });

  test('killed outright during its first initialisation (a second Ctrl-C), the next start still works', async () => {
    const freshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'propdesk-stopping-init-'));
    fs.chmodSync(freshDir, 0o755);
    try {
      const fresh = { ...env, PROPDESK_DATA_DIR: freshDir };
      const cut = launch({ via: 'node', ports, env: fresh });
      current = cut;
      cut.ready.catch(() => {});
      await waitUntil(() => cut.stderr().includes('initialising the embedded PostgreSQL cluster'), { timeoutMs: 60_000, what: 'the initialising line' });
      // What start.mjs does on a second Ctrl-C: SIGKILL to the supervisor's process group, which
      // holds initdb too.
      await waitUntil(() => stackProcesses(cut.marker).some((p) => /initdb/.test(p.command)), { timeoutMs: 10_000, what: 'initdb running' });
      process.kill(-findProcess(cut, /scripts\/stack\.mjs/).pid, 'SIGKILL');
      await expectAllGone(cut);
      const run = await start({ via: 'node', ports, env: fresh });
      process.kill(run.child.pid!, 'SIGTERM');
      await expectAllGone(run, [Number(fs.readFileSync(path.join(freshDir, 'pg-port'), 'utf8'))]);
    } finally {
      fs.rmSync(freshDir, { recursive: true, force: true });
    }
  });

  test('a second start on a data directory in use says why and ends; the first stack runs on', async () => {
    const first = await start({ via: 'node', ports, env });
    // Other ports, so that what refuses it is the database, which starts before any port is taken.
    const second = launch({ via: 'node', ports: portsFrom(18435), env });
    try {
      await expectRefused(second);
      expect(second.stderr()).toContain(`is another PropDesk already using ${path.join(dataDir, 'pg')}?`);
      await expectAllGone(second);
    } finally {
      await killLeftovers(second);
    }
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/healthz`)).status).toBe(200);
    process.kill(first.child.pid!, 'SIGTERM');
    await expectAllGone(first, [pgPort()]);
  });

  test('Ctrl-C of npm start: the services in order, then the database', async () => {
    const run = await start({ via: 'npm', ports, env });
    process.kill(-run.child.pid!, 'SIGINT');
    await expectAllGone(run, [pgPort()]);
    expectStoppedInOrder(run);
    const log = run.stderr();
    expect(log.indexOf('[propdesk] embedded PostgreSQL stopped')).toBeGreaterThan(log.lastIndexOf('"name":"auth"'));
  });
});

describe('the stack watchdog', () => {
  test('kills a service that cannot end on its own once the supervisor is gone, after its grace', async () => {
    // A stand-in supervisor: the watchdog, and a "service" that ignores SIGTERM and never exits.
    const supervisorScript = `
      const { spawn } = require('node:child_process');
      const watchdog = spawn(process.execPath, [${JSON.stringify(path.join(REPOSITORY_ROOT, 'scripts', 'stack-watchdog.cjs'))}], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
      watchdog.send({ services: [stubborn.pid] }, () => console.log(JSON.stringify({ stubborn: stubborn.pid, watchdog: watchdog.pid })));
      setInterval(() => {}, 1000);`;
    const supervisor = spawn(process.execPath, ['-e', supervisorScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pids = await new Promise<{ stubborn: number; watchdog: number }>((resolve) => {
      supervisor.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()) as { stubborn: number; watchdog: number }));
    });
    const isAlive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return !/^State:\s*Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return false;
      }
    };
    try {
      const killedAt = Date.now();
      supervisor.kill('SIGKILL');
      // The services' own drain gets its time first...
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(isAlive(pids.stubborn)).toBe(true);
      // ...then whatever is left goes, and the watchdog with it, within SPEC's 20 s.
      while ((isAlive(pids.stubborn) || isAlive(pids.watchdog)) && Date.now() - killedAt < 25_000) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect({ stubborn: isAlive(pids.stubborn), watchdog: isAlive(pids.watchdog) }).toEqual({ stubborn: false, watchdog: false });
      expect(Date.now() - killedAt).toBeLessThanOrEqual(STOP_WITHIN_MS);
    } finally {
      for (const pid of [pids.stubborn, pids.watchdog]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone, as it should be */
        }
      }
    }
  });
});
