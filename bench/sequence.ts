/**
 * SPEC 17's price: numbering every event in its account's sequence must cost the engine's verdicts
 * and the write routes nothing measurable. Side by side, this checkout against BENCH_BASELINE_ROOT
 * (a built checkout of the code to compare with, e.g. main: `git worktree add ../baseline main &&
 * cd ../baseline && npm ci && npx tsc -b`), in BENCH_ROUNDS alternating rounds (default 3), the
 * side that goes first swapping each round:
 *  1. firm-scale breach latency: each side's accounts service in a process of its own on a fresh
 *     database with the firm book (BENCH_FIRM_POSITIONS over BENCH_FIRM_ACCOUNTS, the firm bench's
 *     knobs), BENCH_SEQUENCE_BREACHES breaching quotes slipped into a feed of BENCH_SEQUENCE_FEED
 *     quotes/s (default 500): breaching quote -> committed breach with its event (the firm bench's
 *     measurement, trading/breach-latency.ts);
 *  2. a write route's throughput: POST /v1/accounts/{n}/positions (a 0.01-lot market order: the
 *     account locked, the position, its position.opened with its sequence) through each side's
 *     whole stack of processes, BENCH_CONNECTIONS concurrent requests (default 32) spread over 64
 *     accounts for BENCH_DURATION_SEC (default 10).
 * Prints each round, then each side's pooled breach p50/p99 and mean throughput and this/baseline
 * ratios (target: within noise, e.g. p99 <= 1.1x and throughput >= 0.95x). Not in the default set:
 * `BENCH_BASELINE_ROOT=... npm run bench -- sequence`; without it, this checkout alone. BENCH_THIS_ROOT
 * puts another built checkout in this one's place (the change to price against its parent).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createServiceClient } from '@propdesk/kit';
import { createTestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { startService } from './support/accounts-service';
import { fmt, variedLoad, type LoadResult } from './support/load';
import { inDigits } from './support/quote-feed';
import { admin, ROOT, startProcessStack } from './support/stack';
import { measureBreaches, percentile } from './trading/breach-latency';
import { seedFirmBook } from './trading/firm-book';
import { seedBreachAccounts, SYMBOLS } from './trading/seed';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BREACHES = Number(process.env.BENCH_SEQUENCE_BREACHES ?? 50);
const FEED_RATE = Number(process.env.BENCH_SEQUENCE_FEED ?? 500);
const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ORDER_ACCOUNTS = 64;

interface Side {
  name: string;
  root: string;
  breaches: number[];
  missed: number;
  writes: LoadResult[];
}

/** Breach latencies of one side: its own service, database and firm book. */
async function breachRound(side: Side): Promise<void> {
  const db = await createTestDatabase('pd_bench_seq');
  const service = await startService({ DATABASE_URL: db.url }, side.root);
  const client = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 60_000);
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  try {
    const org = randomUUID();
    await seedFirmBook(pg, org);
    const accounts = await seedBreachAccounts(pg, org, BREACHES);
    for (const s of SYMBOLS) await client.call.publishQuote({ quote: { symbol: s.symbol, bid: inDigits(s.mid, s.digits), ask: inDigits(s.mid + s.spread, s.digits) } });
    await sleep(1000);
    const run = await measureBreaches({ raw: client.raw, pg, databaseUrl: db.url, org, accounts, from: BREACHES, to: 1, loadRate: FEED_RATE });
    side.breaches.push(...run.latencies);
    side.missed += run.missed;
    console.log(
      `  ${side.name}: ${run.latencies.length} breaches at ${FEED_RATE} quotes/s, p50 ${percentile(run.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(run.latencies, 0.99).toFixed(1)} ms` +
        `${run.missed ? `, ${run.missed} not seen` : ''}${run.feedError ? `, feed failed: ${run.feedError}` : ''}`,
    );
  } finally {
    await pg.end();
    client.close();
    await service.stop();
    await db.drop();
  }
}

/** How many of the stack's events carry a sequence (none on a checkout without them). */
async function numbered(databaseUrl: string): Promise<string> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ all: string; numbered: string }>(
      `SELECT count(*) AS all, count(*) FILTER (WHERE (to_jsonb(e) ->> 'sequence') IS NOT NULL) AS numbered FROM accounts.events e`,
    );
    return `${rows[0].numbered} of ${rows[0].all} events numbered`;
  } finally {
    await pg.end();
  }
}

/** POST /v1/accounts/{n}/positions throughput of one side's whole stack. */
async function writeRound(side: Side): Promise<void> {
  const stack = await startProcessStack({ RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_WRITE_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000' }, side.root);
  try {
    const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', String(ORDER_ACCOUNTS)], side.root);
    const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'trading:write'], side.root);
    const { accounts } = (await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', String(ORDER_ACCOUNTS)], side.root)) as { accounts: number[] };
    await admin(stack.env, ['quotes:publish', '--symbol', 'EURUSD', '--bid', '1.1', '--ask', '1.1001'], side.root);
    const headers = { authorization: `Bearer ${String(key.token)}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ symbol: 'EURUSD', side: 'buy', volume: 0.01, type: 'market' });
    const order = (durationSec: number) =>
      variedLoad({ connections: CONNECTIONS, durationSec, next: (n) => ({ url: `${stack.url}/v1/accounts/${accounts[n % accounts.length]}/positions`, headers, body }) });
    await order(2); // warm-up: connections, prepared statements, the engine's index
    const result = await order(DURATION);
    side.writes.push(result);
    console.log(`  ${side.name}: POST /v1/accounts/{n}/positions ${fmt(result)} (${await numbered(stack.env.DATABASE_URL)})`);
  } finally {
    await stack.stop();
  }
}

export async function run(): Promise<void> {
  const baselineRoot = process.env.BENCH_BASELINE_ROOT;
  // BENCH_THIS_ROOT: another built checkout in this one's place, e.g. the commit that added the
  // sequences against its parent, so that nothing but them differs between the sides.
  const thisRoot = process.env.BENCH_THIS_ROOT ? path.resolve(process.env.BENCH_THIS_ROOT) : ROOT;
  const sides: Side[] = [{ name: 'this', root: thisRoot, breaches: [], missed: 0, writes: [] }];
  if (baselineRoot) sides.unshift({ name: 'baseline', root: path.resolve(baselineRoot), breaches: [], missed: 0, writes: [] });
  else console.log('BENCH_BASELINE_ROOT is not set (a built checkout to compare with, e.g. main): this checkout alone');
  console.log(
    `${sides.map((s) => `${s.name} = ${s.root}`).join(', ')}; ${ROUNDS} rounds of ${BREACHES} breaches (feed at ${FEED_RATE} quotes/s) and ${DURATION} s of orders ` +
      `(${CONNECTIONS} concurrent over ${ORDER_ACCOUNTS} accounts), the side that goes first swapping each round`,
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    console.log(`round ${round + 1}`);
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) await breachRound(side);
    for (const side of order) await writeRound(side);
  }
  const summary = sides.map((side) => {
    const rps = side.writes.reduce((sum, w) => sum + w.requestsPerSec, 0) / Math.max(1, side.writes.length);
    const p99 = percentile(side.breaches, 0.99);
    console.log(
      `${side.name}: breach p50 ${percentile(side.breaches, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${side.breaches.length} breaches` +
        `${side.missed ? ` (${side.missed} not seen)` : ''}; orders ${rps.toFixed(0)} req/s (mean of ${side.writes.length} rounds), non-2xx ${side.writes.reduce((n, w) => n + w.non2xx, 0)}`,
    );
    return { p99, rps };
  });
  if (summary.length === 2) {
    const [baseline, current] = summary;
    console.log(
      `this/baseline: breach p99 ${(current.p99 / baseline.p99).toFixed(2)}x, order throughput ${(current.rps / baseline.rps).toFixed(2)}x ` +
        '(target: within noise, e.g. p99 <= 1.1x and throughput >= 0.95x; on a shared machine compare several runs)',
    );
  }
}
