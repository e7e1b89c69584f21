import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase, freePort, REPOSITORY_ROOT as ROOT, type TestDatabase } from '@propdesk/kit/testing';

/** The repository root and free ports: the same as the tests'. */
export { freePort, REPOSITORY_ROOT as ROOT } from '@propdesk/kit/testing';

export interface ProcessStack {
  url: string;
  env: Record<string, string>;
  db: TestDatabase;
  /** The supervisor's pid (scripts/stack.mjs): its components are found under it (cpu.ts componentPids). */
  pid: number;
  stop(): Promise<void>;
}

/** How scripts/stack.mjs starts every service process: Node flags, and NODE_OPTIONS from the caller's. */
export const { NODE_FLAGS: SERVICE_NODE_FLAGS, serviceNodeOptions } = require(path.join(ROOT, 'scripts/service-node.cjs')) as {
  NODE_FLAGS: string[];
  serviceNodeOptions(current?: string): string;
};

/**
 * The product as it runs for real: every service in its own process (scripts/stack.mjs, the
 * same supervisor as `npm start`), against a fresh database on the local PostgreSQL. `root`: the
 * checkout whose built product runs (another one to compare with, e.g. BENCH_BASELINE_ROOT).
 */
export async function startProcessStack(extraEnv: Record<string, string> = {}, root: string = ROOT): Promise<ProcessStack> {
  const db = await createTestDatabase('pd_bench');
  const port = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    PORT: String(port),
    AUTH_GRPC_PORT: String(await freePort()),
    ACCOUNTS_GRPC_PORT: String(await freePort()),
    WEBHOOKS_GRPC_PORT: String(await freePort()),
    PANEL_PORT: String(await freePort()),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    SIMULATE_MARKET: 'false',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  env.AUTH_GRPC_ADDRESS = `127.0.0.1:${env.AUTH_GRPC_PORT}`;
  env.ACCOUNTS_GRPC_ADDRESS = `127.0.0.1:${env.ACCOUNTS_GRPC_PORT}`;
  env.WEBHOOKS_GRPC_ADDRESS = `127.0.0.1:${env.WEBHOOKS_GRPC_PORT}`;
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  // An empty value means "unset" (e.g. REDIS_URL: ''): the child must not inherit one from the shell.
  for (const [name, value] of Object.entries(env)) if (value === '') delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'scripts/stack.mjs')], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stack did not start:\n${stderr}`)), 120_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('PropDesk ready on')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`stack exited with ${code}:\n${stderr}`));
      });
    });
  } catch (err) {
    child.kill('SIGTERM');
    await db.drop();
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    env: Object.fromEntries(Object.entries(childEnv).filter((e): e is [string, string] => e[1] !== undefined)),
    db,
    pid: child.pid!,
    async stop() {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await db.drop();
    },
  };
}

/** Runs the admin CLI (of `root`'s checkout) against a stack and returns its JSON answer. */
export async function admin(env: Record<string, string>, args: string[], root: string = ROOT): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [path.join(root, 'services/admin-cli/dist/main.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const parsed = JSON.parse(out) as Record<string, unknown>;
  if (code !== 0) throw new Error(`admin ${args[0]} failed: ${out}`);
  return parsed;
}
