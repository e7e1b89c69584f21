/**
 * A quick look at the cost of exactly-once alone: POST /v1/traders without an Idempotency-Key and
 * with a fresh one per request, in alternating rounds, at each concurrency of
 * BENCH_WRITE_CONNECTIONS (default "1,4,32"), against the product as `npm start` runs it. The
 * gateway bench (bench/gateway.ts) measures the same beside the list; this one skips the list.
 *
 *   tsc -b && node bench/dist/support/idempotent-writes.js
 *
 * BENCH_DURATION_SEC (default 6) is split over 2 rounds per side; BENCH_ROUNDS (default 2).
 * BENCH_BASELINE_ROOT: another checkout (built) whose product runs instead, e.g. the code before a change.
 */
import { admin, ROOT, startProcessStack } from './stack';
import { combine, fmt, variedLoad, type LoadResult } from './load';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCIES = (process.env.BENCH_WRITE_CONNECTIONS ?? '1,4,32').split(',').map(Number);
const PRODUCT_ROOT = process.env.BENCH_BASELINE_ROOT ?? ROOT;

function writeLoad(url: string, token: string, keyed: boolean, connections: number, durationSec: number): Promise<LoadResult> {
  return variedLoad({
    connections,
    durationSec,
    next: (n) => {
      const id = `${process.pid}-${n}-${Math.random().toString(36).slice(2)}`;
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      if (keyed) headers['idempotency-key'] = `bench-${id}`;
      return { url, headers, body: JSON.stringify({ name: 'Bench Trader', email: `bench-${id}@example.com` }) };
    },
  });
}

export async function run(): Promise<void> {
  const limits = { RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_WRITE_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000' };
  const stack = await startProcessStack(limits, PRODUCT_ROOT);
  console.log(`the product of ${PRODUCT_ROOT}`);
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '10'], PRODUCT_ROOT);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench-writes', '--scopes', 'accounts:write'], PRODUCT_ROOT);
    const url = `${stack.url}/v1/traders`;
    const token = String(key.token);
    const slice = Math.max(2, Math.round(DURATION / 2));
    for (const connections of CONCURRENCIES) {
      await writeLoad(url, token, false, connections, 2);
      await writeLoad(url, token, true, connections, 2);
      const rounds: { plain: LoadResult[]; keyed: LoadResult[] } = { plain: [], keyed: [] };
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = round % 2 === 0 ? (['plain', 'keyed'] as const) : (['keyed', 'plain'] as const);
        for (const side of order) rounds[side].push(await writeLoad(url, token, side === 'keyed', connections, slice));
      }
      const p = combine(rounds.plain);
      const k = combine(rounds.keyed);
      console.log(`POST /v1/traders, ${connections} clients, ${ROUNDS} alternating rounds of ${slice} s`);
      console.log(`  without Idempotency-Key ${fmt(p)}`);
      console.log(`  with a fresh key each   ${fmt(k)}`);
      console.log(`  with/without: throughput ${(k.requestsPerSec / p.requestsPerSec).toFixed(2)}x (target >= 0.80), p99 ${(k.p99 / Math.max(p.p99, 1)).toFixed(2)}x (target <= 1.30)`);
    }
  } finally {
    await stack.stop();
  }
}

if (require.main === module) {
  run().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
