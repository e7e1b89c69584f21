import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit';
import { repoRoot } from './gateway-limits-module';

/**
 * The stack as `npm start` runs it (scripts/stack.mjs: every service its own process) on free
 * ports against a fresh database, plus the admin CLI and autocannon, with paths resolved from the
 * repository root wherever this file is compiled to.
 */
const ROOT = repoRoot();

export interface ProcessStack {
  url: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startProcessStack(extraEnv: Record<string, string>): Promise<ProcessStack> {
  const db: TestDatabase = await createTestDatabase('pd_bench_limits');
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
  // An empty value means "unset" here: the child must not inherit one from the bench's shell.
  for (const [name, value] of Object.entries(env)) if (value === '') delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'scripts/stack.mjs')], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stderr?.on('data', keep);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stack did not start:\n${output}`)), 120_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        keep(chunk);
        if (output.includes('PropDesk ready on')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`stack exited with ${code}:\n${output}`));
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

export async function admin(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [path.join(ROOT, 'services/admin-cli/dist/main.js'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`admin ${args[0]} failed: ${out}`);
  return JSON.parse(out) as Record<string, unknown>;
}

/** autocannon in its own process, pinned with taskset to the last core when there is more than one. */
export async function load(options: { url: string; headers?: Record<string, string>; connections: number; durationSec: number }): Promise<LoadResult> {
  const args = [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-j', '-c', String(options.connections), '-d', String(options.durationSec)];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(options.url);
  const cores = os.cpus().length;
  const [cmd, cmdArgs] = cores > 1 ? ['taskset', ['-c', String(cores - 1), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { requestsPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

export function fmt(r: LoadResult): string {
  return `${r.requestsPerSec.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}${r.errors ? `, errors ${r.errors}` : ''}`;
}
