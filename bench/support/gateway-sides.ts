/**
 * The gateway bench's parts other than the product: the in-process baseline and the bare
 * node:http ceiling as servers, the product's seed and its coalescing counter, and how rounds of
 * two sides alternate and combine.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { LoadResult } from './load';
import { admin, SERVICE_NODE_FLAGS, type ProcessStack } from './stack';

export interface Server {
  url: string;
  stop(): Promise<void>;
}

/** A server script (one of bench/support's) in a process of its own; it prints its URL on stdout. */
export interface ScriptServer extends Server {
  pid: number;
}

/**
 * Starts `script` with `node ...nodeArgs`, this process's environment and `env` (an empty value
 * unsets a variable), and waits for the URL it prints.
 */
export async function startServerScript(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ScriptServer> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === '') delete childEnv[name];
  const child = spawn(process.execPath, [...nodeArgs, script], { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The baseline in a process of its own (baseline-server.ts), with the same Node flags and options
 * as the product's processes get from scripts/stack.mjs, so that neither side has a runtime
 * setting the other lacks.
 */
export function startBaseline(databaseUrl: string, nodeOptions: string): Promise<Server> {
  return startServerScript(path.join(__dirname, 'baseline-server.js'), { DATABASE_URL: databaseUrl, NODE_OPTIONS: nodeOptions }, SERVICE_NODE_FLAGS);
}

/** Bare node:http answering a fixed body: what a request costs with nothing behind it. */
export async function startCeiling(body: string): Promise<Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

/** An organization with 300 accounts, a read key and a write key; their tokens. */
export async function seedOrganization(stack: ProcessStack): Promise<{ read: string; write: string }> {
  const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '1000']);
  const read = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'accounts:read']);
  for (let i = 0; i < 3; i += 1) await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
  const write = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench-writes', '--scopes', 'accounts:write']);
  return { read: String(read.token), write: String(write.token) };
}

/** The gateway's propdesk_gateway_list_accounts_call_size histogram: calls made and requests they carried. */
export async function listCallSizes(url: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^propdesk_gateway_list_accounts_call_size_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

/**
 * Sides measured in alternating rounds (A B, B A, A B, ...; with three, A B C, C B A, ...), so that
 * a slow spell of a shared machine weighs on all of them instead of on whichever happened to run then.
 */
export async function alternate<S extends string>(sides: readonly S[], rounds: number, measure: (side: S) => Promise<LoadResult>): Promise<Record<S, LoadResult[]>> {
  const results = Object.fromEntries(sides.map((side) => [side, []])) as unknown as Record<S, LoadResult[]>;
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) results[side].push(await measure(side));
  }
  return results;
}

/** "0.93x" of a over b, p99 ratio beside it. */
export function ratios(a: LoadResult, b: LoadResult): { throughput: number; p99: number } {
  return { throughput: a.requestsPerSec / b.requestsPerSec, p99: a.p99 / Math.max(b.p99, 0.01) };
}

/** Student's t, two-sided 95 %, by degrees of freedom 1-30; beyond 30 the normal's 1.96 is near enough. */
const T_95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/**
 * Throughput of `a` over `b` from paired rounds (a's round i measured next to b's, alternate()):
 * the rounds' ratios, their geometric mean and its 95 % interval (Student's t over the ratios'
 * logarithms). On a shared machine single rounds' ratios ranged 0.72-1.14x in one run; the
 * interval says whether a figure clears a target or only lands near it.
 */
export function pairedRatio(a: LoadResult[], b: LoadResult[]): { each: number[]; mean: number; low: number; high: number } {
  const each = a.map((r, i) => ratios(r, b[i]).throughput);
  const logs = each.map(Math.log);
  const n = logs.length;
  const mean = logs.reduce((sum, x) => sum + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(logs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1)) : Number.NaN;
  const half = ((T_95[n - 2] ?? 1.96) * sd) / Math.sqrt(n);
  return { each, mean: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) };
}
