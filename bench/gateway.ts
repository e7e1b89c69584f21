/**
 * Issue 2's benchmark: GET /v1/accounts?limit=50 three ways, in one run.
 *  1. product   — gateway -> gRPC -> accounts, auth in its own process (scripts/stack.mjs)
 *  2. baseline  — in-process: Express + the same key check (SHA-256 + key lookup) + the same SQL
 *                 (the product's list statement, PostgreSQL rendering the page), one process
 *  3. ceiling   — bare node:http answering a fixed body of the same size
 * Targets: product >= 0.9x baseline throughput, p99 <= 1.3x baseline p99.
 *
 * Then the cost of exactly-once on a write: POST /v1/traders (a new trader each time) without an
 * Idempotency-Key and with a fresh one per request (the gateway's fast path in the auth service
 * plus the record written in the accounts service's transaction), in alternating rounds.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { admin, SERVICE_NODE_FLAGS, serviceNodeOptions, startProcessStack } from './support/stack';
import { fmt, load, variedLoad, type LoadResult } from './support/load';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds of one side as one result: mean throughput, median latencies, summed failures. */
function combine(results: LoadResult[]): LoadResult {
  return {
    requestsPerSec: results.reduce((sum, r) => sum + r.requestsPerSec, 0) / results.length,
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/**
 * The baseline in a process of its own (bench/support/baseline-server.ts), with the same Node
 * flags and options as the product's processes get from scripts/stack.mjs, so that neither side
 * has a runtime setting the other lacks.
 */
async function startBaseline(databaseUrl: string, nodeOptions: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(__dirname, 'support/baseline-server.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_OPTIONS: nodeOptions },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The gateway's propdesk_gateway_list_accounts_call_size histogram: calls made and requests they carried. */
async function listCallSizes(url: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^propdesk_gateway_list_accounts_call_size_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

async function startCeiling(body: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

/** POST /v1/traders for `durationSec`, each with its own body and (when keyed) its own Idempotency-Key. */
function writeLoad(url: string, token: string, keyed: boolean, durationSec: number): Promise<LoadResult> {
  return variedLoad({
    connections: CONNECTIONS,
    durationSec,
    next: (n) => {
      const id = `${process.pid}-${n}-${Math.random().toString(36).slice(2)}`;
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      if (keyed) headers['idempotency-key'] = `bench-${id}`;
      return { url, headers, body: JSON.stringify({ name: 'Bench Trader', email: `bench-${id}@example.com` }) };
    },
  });
}

/** POST /v1/traders without and with a fresh Idempotency-Key per request, in alternating rounds. */
async function measureWrites(baseUrl: string, token: string): Promise<void> {
  const url = `${baseUrl}/v1/traders`;
  await writeLoad(url, token, false, 2);
  await writeLoad(url, token, true, 2);
  const rounds: { plain: LoadResult[]; keyed: LoadResult[] } = { plain: [], keyed: [] };
  const slice = Math.max(2, Math.round(DURATION / 2));
  for (let round = 0; round < 2; round += 1) {
    const order = round % 2 === 0 ? (['plain', 'keyed'] as const) : (['keyed', 'plain'] as const);
    for (const side of order) rounds[side].push(await writeLoad(url, token, side === 'keyed', slice));
  }
  const p = combine(rounds.plain);
  const k = combine(rounds.keyed);
  console.log(`POST /v1/traders (a new trader each), ${CONNECTIONS} concurrent requests from the bench process, 2 alternating rounds of ${slice} s each`);
  console.log(`  without Idempotency-Key ${fmt(p)}`);
  console.log(`  with a fresh key each   ${fmt(k)}`);
  console.log(`  with/without: throughput ${(k.requestsPerSec / p.requestsPerSec).toFixed(2)}x, p99 ${(k.p99 / Math.max(p.p99, 1)).toFixed(2)}x`);
}

export async function run(): Promise<void> {
  // Limits far above the load so that the comparison measures the request path, not 429s.
  const stack = await startProcessStack({ RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_WRITE_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000', ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}) });
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '1000']);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'accounts:read']);
    for (let i = 0; i < 3; i += 1) await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
    const writeKey = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench-writes', '--scopes', 'accounts:write']);
    const token = String(key.token);
    const path = '/v1/accounts?limit=50';
    const sample = await fetch(stack.url + path, { headers: { authorization: `Bearer ${token}` } });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`product answered ${sample.status}: ${body}`);

    const baseline = await startBaseline(stack.env.DATABASE_URL, serviceNodeOptions(stack.env.NODE_OPTIONS));
    const ceiling = await startCeiling(body);
    const headers = { authorization: `Bearer ${token}` };
    try {
      const check = await fetch(baseline.url + path, { headers });
      if (check.status !== 200) throw new Error(`baseline answered ${check.status}`);
      // Warm-up, then the measured runs.
      await load({ url: stack.url + path, headers, connections: CONNECTIONS, durationSec: 3 });
      await load({ url: baseline.url + path, headers, connections: CONNECTIONS, durationSec: 3 });
      // Product and baseline alternate in rounds (P B, B P, P B...), so that a slow spell of a shared
      // machine weighs on both instead of on whichever happened to run then.
      const calls = { before: await listCallSizes(stack.url), after: { count: 0, sum: 0 } };
      const rounds: { product: LoadResult[]; baseline: LoadResult[] } = { product: [], baseline: [] };
      const slice = Math.max(2, Math.round(DURATION / 2));
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = round % 2 === 0 ? (['product', 'baseline'] as const) : (['baseline', 'product'] as const);
        for (const side of order) {
          const url = (side === 'product' ? stack.url : baseline.url) + path;
          rounds[side].push(await load({ url, headers, connections: CONNECTIONS, durationSec: slice }));
        }
      }
      calls.after = await listCallSizes(stack.url);
      const results: Record<string, LoadResult> = {
        product: combine(rounds.product),
        baseline: combine(rounds.baseline),
        ceiling: await load({ url: ceiling.url + path, headers, connections: CONNECTIONS, durationSec: slice }),
      };
      console.log(`GET ${path}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${slice} s each, response ${body.length} bytes`);
      console.log(`load generator pinned to its own core with taskset where the machine has more than one`);
      rounds.product.forEach((p, i) => {
        const b = rounds.baseline[i];
        console.log(`  round ${i + 1}: product ${fmt(p)}; baseline ${fmt(b)}; throughput ${(p.requestsPerSec / b.requestsPerSec).toFixed(2)}x, p99 ${(p.p99 / Math.max(b.p99, 1)).toFixed(2)}x`);
      });
      console.log('  (throughput: mean of the rounds; p50 and p99: median of the rounds)');
      for (const [name, r] of Object.entries(results)) console.log(`  ${name.padEnd(9)} ${fmt(r)}`);
      const ratio = results.product.requestsPerSec / results.baseline.requestsPerSec;
      const p99 = results.product.p99 / Math.max(results.baseline.p99, 1);
      console.log(`  product/baseline throughput ${ratio.toFixed(2)}x (target >= 0.90), p99 ${p99.toFixed(2)}x (target <= 1.30)`);
      const count = calls.after.count - calls.before.count;
      const perCall = (calls.after.sum - calls.before.sum) / Math.max(count, 1);
      console.log(`  product: ${count} calls to the accounts service, ${perCall.toFixed(1)} list requests per call on average (coalesced)`);
      console.log(`  product/ceiling throughput ${(results.product.requestsPerSec / results.ceiling.requestsPerSec).toFixed(2)}x`);
      await measureWrites(stack.url, String(writeKey.token));
    } finally {
      await baseline.stop();
      await ceiling.stop();
    }
  } finally {
    await stack.stop();
  }
}
