import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { LoadSpec, LoadSummary } from './http-load';
import { ROOT } from './stack';

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * autocannon in a process of its own, pinned to the last core with taskset when there is more
 * than one, so the load generator competes with the servers as little as possible.
 */
export async function load(options: {
  url: string;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  connections?: number;
  durationSec?: number;
}): Promise<LoadResult> {
  const args = [
    path.join(ROOT, 'node_modules/autocannon/autocannon.js'),
    '-j',
    '-c',
    String(options.connections ?? 32),
    '-d',
    String(options.durationSec ?? 10),
    '-m',
    options.method ?? 'GET',
  ];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (options.body) args.push('-b', options.body);
  args.push(options.url);
  return pinnedLoad(args);
}

/**
 * A node script printing autocannon's JSON result (autocannon's CLI, or a script driving it, e.g.
 * bench/audit/write-load.ts) in a process of its own, pinned to the last core when there are several.
 */
export async function pinnedLoad(args: string[]): Promise<LoadResult> {
  const cores = os.cpus().length;
  const [cmd, cmdArgs] = cores > 1 ? ['taskset', ['-c', String(cores - 1), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  const r = JSON.parse(out) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return { requestsPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/**
 * bench/support/http-load.ts in a process of its own, pinned like autocannon: a closed loop of
 * keep-alive connections, latencies to the hundredth of a millisecond.
 */
export async function closedLoop(spec: LoadSpec): Promise<LoadResult> {
  const cores = os.cpus().length;
  const args = [path.join(__dirname, 'http-load.js'), JSON.stringify(spec)];
  const [cmd, cmdArgs] = cores > 1 ? ['taskset', ['-c', String(cores - 1), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${String(code)}`);
  const r = JSON.parse(out) as LoadSummary;
  return { requestsPerSec: r.requests / r.seconds, p50: r.p50, p99: r.p99, non2xx: r.non2xx, errors: r.errors };
}

export function fmt(r: LoadResult): string {
  const ms = (v: number) => Math.round(v * 100) / 100;
  return `${r.requestsPerSec.toFixed(0)} req/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}${r.errors ? `, errors ${r.errors}` : ''}`;
}

/**
 * Concurrent requests for `durationSec`, each made by `next` (its own URL, headers and body):
 * autocannon cannot vary them per request, so this loop runs in the bench process (both sides of
 * a comparison alike, so it holds; absolute figures are lower than autocannon's).
 */
export async function variedLoad(options: {
  connections: number;
  durationSec: number;
  next: (n: number) => { url: string; method?: string; headers: Record<string, string>; body?: string };
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let n = 0;
  const end = Date.now() + options.durationSec * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const request = options.next((n += 1));
      const t = process.hrtime.bigint();
      try {
        const res = await fetch(request.url, { method: request.method ?? 'POST', headers: request.headers, body: request.body });
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) non2xx += 1;
      } catch {
        errors += 1;
      }
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { requestsPerSec: latencies.length / options.durationSec, p50: at(0.5), p99: at(0.99), non2xx, errors };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds of one side as one result: mean throughput, median latencies, summed failures. */
export function combine(results: LoadResult[]): LoadResult {
  return {
    requestsPerSec: results.reduce((sum, r) => sum + r.requestsPerSec, 0) / results.length,
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}
