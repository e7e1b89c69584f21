/**
 * SPEC 14's audit log, two figures:
 *  1. write routes' throughput with and without their audit entry, side by side: PUT
 *     /v1/accounts/{number}/trader (every request a new holder: an account.assign and its event)
 *     and POST /v1/accounts/{number}/credentials/rotate (no event: the entry is a larger share of
 *     the work), on two stacks side by side, the second one's accounts service with
 *     BENCH_SKIP_AUDIT_ENTRIES (a benchmark-only switch), their runs alternating. Target: the entry costs at most 10 % of the throughput.
 *  2. GET /v1/audit_events: the first page and a page past the millionth entry of one organization
 *     (keyset paging across the three services). Target: at most 1.2 times the first page.
 * BENCH_AUDIT_ENTRIES (default 1,000,000), BENCH_AUDIT_SECONDS (default 10 per run) and
 * BENCH_AUDIT_ROUNDS (default 3) shorten it.
 */
import path from 'node:path';
import { Client } from 'pg';
import { auditCursorScope, createCursorCodec } from '@propdesk/kit';
import { fmt, pinnedLoad, type LoadResult } from './support/load';
import { admin, startProcessStack, type ProcessStack } from './support/stack';
import { timeOnce } from './support/timing';

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_AUDIT_SECONDS ?? 10);
/** Alternating runs of each route on each stack (BENCH_AUDIT_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 3);
const ACCOUNTS = 200;
const CONNECTIONS = 16;

const UNLIMITED = { RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_WRITE_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000' };

async function setUp(stack: ProcessStack): Promise<{ org: string; token: string; numbers: number[] }> {
  const org = String((await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', String(ACCOUNTS)])).id);
  const key = await admin(stack.env, ['key:create', '--org', org, '--name', 'bench', '--scopes', 'accounts:read,accounts:write,credentials:read,audit:read']);
  const numbers: number[] = [];
  for (let left = ACCOUNTS; left > 0; left -= 100) {
    const created = await admin(stack.env, ['accounts:create', '--org', org, '--count', String(Math.min(100, left))]);
    numbers.push(...(created.accounts as number[]));
  }
  return { org, token: String(key.token), numbers };
}

type Route = 'assign' | 'rotate';
const ROUTES: Record<Route, string> = { assign: 'PUT /v1/accounts/{number}/trader', rotate: 'POST /v1/accounts/{number}/credentials/rotate' };

/** A write load (audit/write-load.ts) in its own process, on the last core when there are several. */
function writeLoad(route: Route, stack: ProcessStack, token: string, numbers: number[]): Promise<LoadResult> {
  return pinnedLoad([path.join(__dirname, 'audit/write-load.js'), JSON.stringify({ route, url: stack.url, token, numbers, connections: CONNECTIONS, durationSec: SECONDS })]);
}

interface Measured {
  stack: ProcessStack;
  token: string;
  numbers: number[];
  runs: Record<Route, LoadResult[]>;
}

/** The sum of several runs' figures, averaged: throughput and latency percentiles. */
function averaged(runs: LoadResult[]): LoadResult {
  const mean = (pick: (r: LoadResult) => number) => Math.round((runs.reduce((sum, r) => sum + pick(r), 0) / runs.length) * 10) / 10;
  return { requestsPerSec: mean((r) => r.requestsPerSec), p50: mean((r) => r.p50), p99: mean((r) => r.p99), non2xx: mean((r) => r.non2xx), errors: mean((r) => r.errors) };
}

/**
 * Both stacks (with entries, and without) stay up, and their runs alternate, ROUNDS times: a busy
 * moment of the machine then weighs on both alike. Each route is warmed up once on each stack
 * first (traders exist, plans are cached, code is optimized).
 */
async function writeRoutes(): Promise<{ with: Record<Route, LoadResult>; without: Record<Route, LoadResult> }> {
  const stacks: Measured[] = [];
  try {
    for (const skip of [false, true]) {
      const stack = await startProcessStack({ ...UNLIMITED, ...(skip ? { BENCH_SKIP_AUDIT_ENTRIES: 'true' } : {}) });
      stacks.push({ stack, ...(await setUp(stack)), runs: { assign: [], rotate: [] } });
    }
    for (const route of Object.keys(ROUTES) as Route[]) {
      for (const m of stacks) await writeLoad(route, m.stack, m.token, m.numbers);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const m of stacks) m.runs[route].push(await writeLoad(route, m.stack, m.token, m.numbers));
      }
    }
    const figures = (m: Measured) => ({ assign: averaged(m.runs.assign), rotate: averaged(m.runs.rotate) });
    return { with: figures(stacks[0] as Measured), without: figures(stacks[1] as Measured) };
  } finally {
    for (const m of stacks) await m.stack.stop();
  }
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;

async function deepListing(): Promise<void> {
  const stack = await startProcessStack(UNLIMITED);
  try {
    const { org, token } = await setUp(stack);
    const pg = new Client({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    const started = Date.now();
    // One entry a second back in time from now, in the accounts service's table (the append-only
    // trigger refuses changes, not inserts); auth and webhooks keep their own few.
    await pg.query(
      `INSERT INTO accounts.audit_entries (id, organization_id, livemode, created_at, actor_type, actor_id, actor_label, action, target_type, target_id, changes)
       SELECT 'aud_' || lpad(to_hex(i), 32, '0'), $1::uuid, true, now() - make_interval(secs => i), 'operator', 'cli', 'cli', 'account.archive', 'account', (1000000 + i % 1000)::text, '{"status": ["active", "archived"]}'
         FROM generate_series(1, $2::int) AS i`,
      [org, ENTRIES],
    );
    await pg.query('VACUUM ANALYZE accounts.audit_entries');
    const deep = await pg.query<{ t: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t, id FROM accounts.audit_entries
        WHERE organization_id = $1 AND livemode ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [org, ENTRIES - 100],
    );
    await pg.end();
    console.log(`${ENTRIES} audit entries in one organization (bulk insert and analyze ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    // The cursor GET /v1/audit_events would hand out after that entry: sealed with the stack's secret.
    const cursors = createCursorCodec(stack.env.CURSOR_SECRET as string);
    const cursor = cursors.encode(auditCursorScope({ organizationId: org, livemode: true }, {}), deep.rows[0]);
    const headers = { authorization: `Bearer ${token}` };
    const urls = [`${stack.url}/v1/audit_events?limit=50`, `${stack.url}/v1/audit_events?limit=50&cursor=${encodeURIComponent(cursor)}`];
    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < 50; i += 1) for (const url of urls) await timeOnce(url, headers);
    for (let i = 0; i < 300; i += 1) {
      samples[0].push(await timeOnce(urls[0] as string, headers));
      samples[1].push(await timeOnce(urls[1] as string, headers));
    }
    const [first, past] = samples.map(median) as [number, number];
    console.log(`  first page                p50 ${first.toFixed(2)} ms`);
    console.log(`  page past entry ${ENTRIES - 100}   p50 ${past.toFixed(2)} ms`);
    console.log(`  deep/first p50 ratio ${(past / first).toFixed(2)} (target <= 1.2)`);
  } finally {
    await stack.stop();
  }
}

export async function run(): Promise<void> {
  const { with: withEntry, without: withoutEntry } = await writeRoutes();
  for (const route of Object.keys(ROUTES) as Route[]) {
    console.log(`${ROUTES[route]}, ${CONNECTIONS} connections, ${ROUNDS} alternating runs of ${SECONDS} s on each stack (averages):`);
    console.log(`  with its audit entry       ${fmt(withEntry[route])}`);
    console.log(`  without (benchmark switch) ${fmt(withoutEntry[route])}`);
    console.log(`  cost of the entry ${((1 - withEntry[route].requestsPerSec / withoutEntry[route].requestsPerSec) * 100).toFixed(1)} % of the throughput (target <= 10 %)`);
  }
  await deepListing();
}
