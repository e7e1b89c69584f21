/**
 * Issue 4's and issue 14's benchmark.
 *  (a) Gateway throughput on GET /v1/accounts?limit=50 through the real stack with the Redis
 *      limiter on (REDIS_URL set) and off (in-process limits), and the ratio.
 *  (b) Redis commands per request for one key flooding at 10x its limit, with and without the
 *      in-memory block: through the limits module (both ways) and through the real gateway
 *      (as configured, i.e. with the block). Counts are INFO commandstats deltas on a Redis of the
 *      bench's own.
 *  (c) per-key limits (issue 14): the same counts for a key with its own limits (set with the
 *      CLI's key:set-limits) beside a key on the defaults: requests under the limit and a flood at
 *      10x the key's own limit, through the limits module and through the real gateway. Own limits
 *      must add no Redis round trip.
 */
import { createLogger } from '@propdesk/kit';
import { fmt, load, type LoadResult } from './support/load';
import { admin, startProcessStack, type ProcessStack } from './support/stack';
import { loadLimitsModule, startOwnRedisServer, type CommandCount, type OwnRedisServer } from './limits/gateway-limits-module';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PATH = '/v1/accounts?limit=50';
const FLOOD_LIMIT = 100;
const FLOOD_REQUESTS = FLOOD_LIMIT * 10;
/** A key's own limits in (c): half the defaults, so its own buckets are used. */
const OWN_WRITE_LIMIT = FLOOD_LIMIT / 2;
const OWN_READ_LIMIT = 1_000_000;
const UNDER_LIMIT_REQUESTS = 1000;

interface Seeded {
  token: string;
  /** A second key of the organization with its own limits (OWN_READ_LIMIT, OWN_WRITE_LIMIT). */
  ownToken: string;
}

async function seed(stack: ProcessStack): Promise<Seeded> {
  const org = await admin(stack.env, ['org:create', '--name', 'Limits bench', '--credits', '1000']);
  const createKey = (name: string) =>
    admin(stack.env, ['key:create', '--org', String(org.id), '--name', name, '--scopes', 'accounts:read,accounts:write']);
  const key = await createKey('bench');
  const own = await createKey('bench own limits');
  await admin(stack.env, ['key:set-limits', '--key', String(own.id), '--read', String(OWN_READ_LIMIT), '--write', String(OWN_WRITE_LIMIT)]);
  await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
  for (const token of [String(key.token), String(own.token)]) {
    const probe = await fetch(stack.url + PATH, { headers: { authorization: `Bearer ${token}` } });
    if (probe.status !== 200) throw new Error(`gateway answered ${probe.status}: ${await probe.text()}`);
  }
  return { token: String(key.token), ownToken: String(own.token) };
}

async function measureThroughput(stack: ProcessStack, token: string): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${token}` };
  await load({ url: stack.url + PATH, headers, connections: CONNECTIONS, durationSec: 2 });
  return load({ url: stack.url + PATH, headers, connections: CONNECTIONS, durationSec: DURATION });
}

const perRequest = (before: CommandCount, after: CommandCount, requests: number) =>
  `${((after.roundTrips - before.roundTrips) / requests).toFixed(3)} round trips/request ` +
  `(${((after.executed - before.executed) / requests).toFixed(3)} commands executed incl. inside the Lua script)`;

/** One key sends 10x its write limit (FLOOD_LIMIT, or its own) through the real gateway, sequentially. */
async function floodThroughGateway(stack: ProcessStack, token: string, redis: OwnRedisServer, limit = FLOOD_LIMIT): Promise<string> {
  const requests = limit * 10;
  const before = await redis.commandCount();
  let refused = 0;
  for (let i = 0; i < requests; i += 1) {
    // An invalid body: the limiter counts the write before validation answers 400.
    const res = await fetch(`${stack.url}/v1/traders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (res.status === 429) refused += 1;
    await res.arrayBuffer();
  }
  const after = await redis.commandCount();
  return `${requests} writes, ${requests - refused} passed the limiter, ${refused} got 429: ${perRequest(before, after, requests)}`;
}

/** Reads well under the key's limit through the real gateway, sequentially. */
async function readsThroughGateway(stack: ProcessStack, token: string, redis: OwnRedisServer): Promise<string> {
  const before = await redis.commandCount();
  for (let i = 0; i < UNDER_LIMIT_REQUESTS; i += 1) {
    const res = await fetch(stack.url + PATH, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`read answered ${res.status}`);
    await res.arrayBuffer();
  }
  const after = await redis.commandCount();
  return `${UNDER_LIMIT_REQUESTS} reads: ${perRequest(before, after, UNDER_LIMIT_REQUESTS)}`;
}

/** Module-level counts for one key with or without its own limits: reads under the limit, then a flood at 10x its write limit. */
async function ownLimitsThroughModule(redis: OwnRedisServer, own: boolean): Promise<string> {
  const { createLimits, createRedisForLimits, waitForRedis } = loadLimitsModule();
  const logger = createLogger('bench-limits', { level: 'error', fd: 2 });
  const client = createRedisForLimits(redis.url, logger);
  await waitForRedis(client);
  const limits = createLimits({
    config: { readPerMin: 100_000_000, writePerMin: FLOOD_LIMIT, ipPerMin: 60, keyPrefix: `bench:${Date.now()}:own:${own}` },
    logger,
    redis: client,
  });
  const limitsOfKey = own ? { readPerMin: OWN_READ_LIMIT, writePerMin: OWN_WRITE_LIMIT } : undefined;
  const writeLimit = own ? OWN_WRITE_LIMIT : FLOOD_LIMIT;
  try {
    // The limiter's script is loaded into Redis once; keep that out of the counts.
    await limits.onValid('warm-up', false, limitsOfKey);
    let before = await redis.commandCount();
    for (let i = 0; i < UNDER_LIMIT_REQUESTS; i += 1) await limits.onValid('reading-key', false, limitsOfKey);
    let after = await redis.commandCount();
    const reads = `${UNDER_LIMIT_REQUESTS} reads ${perRequest(before, after, UNDER_LIMIT_REQUESTS)}`;
    before = await redis.commandCount();
    let allowed = 0;
    for (let i = 0; i < writeLimit * 10; i += 1) if ((await limits.onValid('flooding-key', true, limitsOfKey)).allowed) allowed += 1;
    after = await redis.commandCount();
    return `${reads}; ${writeLimit * 10} writes (limit ${writeLimit}), ${allowed} allowed: ${perRequest(before, after, writeLimit * 10)}`;
  } finally {
    await limits.close();
    await client.quit();
  }
}

async function floodThroughModule(redis: OwnRedisServer, inMemoryBlock: boolean): Promise<string> {
  const { createLimits, createRedisForLimits, waitForRedis } = loadLimitsModule();
  const logger = createLogger('bench-limits', { level: 'error', fd: 2 });
  const client = createRedisForLimits(redis.url, logger);
  await waitForRedis(client);
  const limits = createLimits({
    config: { readPerMin: 1200, writePerMin: FLOOD_LIMIT, ipPerMin: 60, keyPrefix: `bench:${Date.now()}:${inMemoryBlock}`, inMemoryBlock },
    logger,
    redis: client,
  });
  try {
    const before = await redis.commandCount();
    let allowed = 0;
    for (let i = 0; i < FLOOD_REQUESTS; i += 1) if ((await limits.onValid('flooding-key', true)).allowed) allowed += 1;
    const after = await redis.commandCount();
    return `${FLOOD_REQUESTS} writes, ${allowed} allowed: ${perRequest(before, after, FLOOD_REQUESTS)}`;
  } finally {
    await limits.close();
    await client.quit();
  }
}

export async function run(): Promise<void> {
  const redis = await startOwnRedisServer();
  try {
    console.log('(b) one key flooding at 10x its limit (limit ' + FLOOD_LIMIT + ' writes/min), Redis commands per request');
    console.log(`  module, in-memory block on:  ${await floodThroughModule(redis, true)}`);
    console.log(`  module, in-memory block off: ${await floodThroughModule(redis, false)}`);

    // Limits far above the load for reads, so (a) measures the limiter's cost and not 429s.
    const limitsEnv = {
      RATE_LIMIT_READ_PER_MIN: '100000000',
      RATE_LIMIT_IP_PER_MIN: '100000000',
      RATE_LIMIT_WRITE_PER_MIN: String(FLOOD_LIMIT),
    };
    let withRedis: LoadResult;
    let ownLimitsThroughGateway: string[];
    const on = await startProcessStack({ ...limitsEnv, REDIS_URL: redis.url });
    try {
      const { token, ownToken } = await seed(on);
      console.log(`  real gateway (block on):     ${await floodThroughGateway(on, token, redis)}`);
      ownLimitsThroughGateway = [
        `  real gateway, default key:   ${await readsThroughGateway(on, token, redis)}`,
        `  real gateway, own limits:    ${await readsThroughGateway(on, ownToken, redis)}`,
        `  real gateway, own limits:    ${await floodThroughGateway(on, ownToken, redis, OWN_WRITE_LIMIT)}`,
      ];
      withRedis = await measureThroughput(on, token);
    } finally {
      await on.stop();
    }
    console.log(`(c) a key with its own limits (read ${OWN_READ_LIMIT}, write ${OWN_WRITE_LIMIT}) beside a key on the defaults, Redis commands per request`);
    console.log(`  module, default key:         ${await ownLimitsThroughModule(redis, false)}`);
    console.log(`  module, own limits:          ${await ownLimitsThroughModule(redis, true)}`);
    for (const line of ownLimitsThroughGateway) console.log(line);
    let inProcess: LoadResult;
    const off = await startProcessStack({ ...limitsEnv, REDIS_URL: '' });
    try {
      const { token } = await seed(off);
      inProcess = await measureThroughput(off, token);
    } finally {
      await off.stop();
    }
    console.log(`(a) GET ${PATH}, ${CONNECTIONS} connections, ${DURATION} s after a 2 s warm-up, through the real stack`);
    console.log('  load generator pinned to its own core with taskset where the machine has more than one');
    console.log(`  Redis limiter on:  ${fmt(withRedis)}`);
    console.log(`  Redis limiter off: ${fmt(inProcess)} (REDIS_URL unset: in-process limits)`);
    console.log(`  on/off throughput ${(withRedis.requestsPerSec / inProcess.requestsPerSec).toFixed(2)}x, p99 ${(withRedis.p99 / Math.max(inProcess.p99, 1)).toFixed(2)}x`);
  } finally {
    await redis.stop();
  }
}
