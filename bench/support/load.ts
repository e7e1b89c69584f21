import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
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

export function fmt(r: LoadResult): string {
  return `${r.requestsPerSec.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}${r.errors ? `, errors ${r.errors}` : ''}`;
}
