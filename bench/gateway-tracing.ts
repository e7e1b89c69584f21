/**
 * SPEC 16's cost of tracing: GET /v1/accounts?limit=50 through the product (every component its
 * own process, scripts/stack.mjs) with tracing off and with tracing on side by side: two stacks
 * at once, measured in alternating rounds (off on, on off, ...) so that a slow spell of a shared
 * machine weighs on both. Tracing on means what SPEC 16 prices: the always-on sampler, every span
 * exported over OTLP/HTTP (protobuf, the batch processor's defaults) to a local receiver that
 * reads and discards each request. Target: on >= 0.90x the throughput of off. With the ratio it
 * prints a 95 % interval from the rounds' own ratios (pairedRatio): 8 rounds leave about +-0.09
 * open on a shared two-core machine, 24 about +-0.05.
 *
 * "Off" runs the product as it is without OTEL_* variables: no SDK module loaded, one boolean
 * check per call site (test/observability/telemetry-settings.test.ts checks the modules).
 *
 * Beside throughput it prints the CPU per request of the gateway and the accounts service on each
 * side, and of the whole machine (every process: both stacks, PostgreSQL, the load generator, the
 * receiver), whose ratio is the throughput ratio a machine bound by CPU alone would give; and the
 * floor (traced-bare-server.ts): what the same set-up adds to a bare server, one span of the
 * maintained HTTP instrumentation and nothing of ours.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { componentPids, machineBusySeconds, processCpuSeconds } from './support/cpu';
import { alternate, pairedRatio, startServerScript } from './support/gateway-sides';
import { combine, fmt, load, type LoadResult } from './support/load';
import { admin, startProcessStack, type ProcessStack } from './support/stack';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/**
 * Alternating rounds per side. On a shared two-core machine single rounds ranged 0.75-1.21x, and
 * three of them gave whole runs from 0.82 to 0.91x on the same build; eight gave 0.86x (about
 * 5 minutes in all with the floor's three sides).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
/**
 * Load on each side before the rounds. 3 s left the tracing side short of its steady state: its
 * first round came out 0.75-0.78x in four runs out of four, its later rounds 0.81-0.93x.
 */
const WARMUP = Number(process.env.BENCH_WARMUP_SEC ?? 10);
const PATH = '/v1/accounts?limit=50';
/**
 * BENCH_TRACING_UNSAMPLED=1 adds a third stack: tracing on with the always-off sampler. Every
 * instrumentation still runs and every span is started, but none is recorded or exported: what it
 * adds is the price of the instrumentations and the context themselves, what no sampler can take
 * away; the rest of the traced side's price is recording and exporting spans. About half as long
 * again.
 */
const UNSAMPLED = process.env.BENCH_TRACING_UNSAMPLED === '1';

/** An OTLP/HTTP endpoint that accepts every export and keeps only counts. */
async function startDiscardingReceiver(): Promise<{ endpoint: string; exports(): number; bytes(): number; stop(): Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** CPU seconds each of `pids`, and the whole machine (`machine`), use while `work` runs. */
async function cpuDuring<T>(pids: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const sample = (): Record<string, number> => ({ ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuSeconds(pid)])), machine: machineBusySeconds() });
  const before = sample();
  const result = await work();
  const after = sample();
  return { result, cpu: Object.fromEntries(Object.entries(after).map(([name, seconds]) => [name, seconds - before[name]])) };
}

/** Measures rounds of load and accumulates CPU seconds and requests per side, for CPU per request. */
function cpuLedger() {
  const seconds: Record<string, Record<string, number>> = {};
  const requests: Record<string, number> = {};
  return {
    /** One round of `side`: `durationSec` of load on `target`, the CPU each of `pids` used counted against its requests. */
    async round(side: string, pids: Record<string, number>, target: Parameters<typeof load>[0], durationSec: number): Promise<LoadResult> {
      const { result, cpu } = await cpuDuring(pids, () => load({ ...target, durationSec }));
      seconds[side] ??= {};
      for (const [name, s] of Object.entries(cpu)) seconds[side][name] = (seconds[side][name] ?? 0) + s;
      requests[side] = (requests[side] ?? 0) + result.requestsPerSec * durationSec;
      return result;
    },
    /** Microseconds of CPU per request of `name` on `side`. */
    perRequest(side: string, name: string): number {
      return ((seconds[side]?.[name] ?? 0) / Math.max(requests[side] ?? 0, 1)) * 1e6;
    },
  };
}

/** An organization with 300 accounts and a read key on a stack; its token. */
async function seed(stack: ProcessStack): Promise<string> {
  const org = await admin(stack.env, ['org:create', '--name', 'Bench', '--credits', '1000']);
  const key = await admin(stack.env, ['key:create', '--org', String(org.id), '--name', 'bench', '--scopes', 'accounts:read']);
  for (let i = 0; i < 3; i += 1) await admin(stack.env, ['accounts:create', '--org', String(org.id), '--count', '100']);
  const token = String(key.token);
  const res = await fetch(stack.url + PATH, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`the stack answered ${res.status}: ${await res.text()}`);
  return token;
}

export async function run(): Promise<void> {
  const receiver = await startDiscardingReceiver();
  // Limits far above the load so that the comparison measures the request path, not 429s.
  const limits = { RATE_LIMIT_READ_PER_MIN: '100000000', RATE_LIMIT_WRITE_PER_MIN: '100000000', RATE_LIMIT_IP_PER_MIN: '100000000' };
  // An empty value unsets a variable the shell may have set.
  type Side = 'off' | 'on' | 'unsampled';
  const traced = (sampler: string) => ({
    ...limits,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: sampler,
  });
  const stacks: Partial<Record<Side, ProcessStack>> = {};
  let pageBytes = 0;
  try {
    stacks.off = await startProcessStack({ ...limits, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
    stacks.on = await startProcessStack(traced('always_on'));
    if (UNSAMPLED) stacks.unsampled = await startProcessStack(traced('always_off'));
    const names = Object.keys(stacks) as Side[];
    const tokens: Partial<Record<Side, string>> = {};
    for (const side of names) tokens[side] = await seed(stacks[side]!);
    const target = (side: Side) => ({ url: stacks[side]!.url + PATH, headers: { authorization: `Bearer ${tokens[side]!}` }, connections: CONNECTIONS });
    for (const side of names) await load({ ...target(side), durationSec: WARMUP });
    pageBytes = (await (await fetch(target('off').url, { headers: target('off').headers })).arrayBuffer()).byteLength;
    const slice = Math.max(2, Math.round(DURATION / 2));
    const exportsBefore = receiver.exports();
    const bytesBefore = receiver.bytes();
    // CPU per request of the two processes on a list request's path, read from /proc beside throughput:
    // steadier than throughput on a shared machine, and it says where tracing's price is paid.
    const pids = Object.fromEntries(names.map((side) => [side, componentPids(stacks[side]!.pid)])) as Record<Side, Record<string, number>>;
    const listPath = (side: Side) => ({ gateway: pids[side].gateway, accounts: pids[side].accounts });
    const ledger = cpuLedger();
    const rounds = await alternate(names, ROUNDS, (side) => ledger.round(side, listPath(side), target(side), slice));
    const offResult = combine(rounds.off);
    const onResult = combine(rounds.on);
    const paired = pairedRatio(rounds.on, rounds.off);
    console.log(`GET ${PATH}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${slice} s each after ${WARMUP} s of warm-up per side; ${UNSAMPLED ? 'three stacks (tracing off, tracing on, always-off sampler)' : 'two stacks (tracing off, tracing on)'}`);
    console.log('load generator pinned to its own core with taskset where the machine has more than one');
    rounds.off.forEach((o, i) => console.log(`  round ${i + 1}: off ${fmt(o)}; on ${fmt(rounds.on[i])}; throughput ${paired.each[i].toFixed(2)}x`));
    console.log(`  tracing off ${fmt(offResult)}`);
    console.log(`  tracing on  ${fmt(onResult)}`);
    console.log(
      `  on/off: throughput ${(onResult.requestsPerSec / offResult.requestsPerSec).toFixed(2)}x (target >= 0.90), p99 ${(onResult.p99 / Math.max(offResult.p99, 1)).toFixed(2)}x`,
    );
    console.log(
      `  the rounds' ratios: ${Math.min(...paired.each).toFixed(2)}-${Math.max(...paired.each).toFixed(2)}x, geometric mean ${paired.mean.toFixed(2)}x, 95 % interval ${paired.low.toFixed(2)}-${paired.high.toFixed(2)}x (how far this machine's noise leaves the figure open)`,
    );
    for (const name of ['gateway', 'accounts', 'machine']) {
      const offCpu = ledger.perRequest('off', name);
      const onCpu = ledger.perRequest('on', name);
      const bound = name === 'machine' ? `; were CPU all that bounds it, on/off would be ${(offCpu / onCpu).toFixed(2)}x` : '';
      console.log(`  CPU per request, ${name.padEnd(8)}: off ${offCpu.toFixed(0)} µs, on ${onCpu.toFixed(0)} µs (tracing adds ${(onCpu - offCpu).toFixed(0)} µs${bound})`);
    }
    const seconds = ROUNDS * slice;
    console.log(
      `  receiver: ${((receiver.exports() - exportsBefore) / seconds).toFixed(1)} OTLP exports and ${((receiver.bytes() - bytesBefore) / seconds / 1024).toFixed(0)} KiB per second of tracing-on load`,
    );
    if (rounds.unsampled) reportUnsampled(rounds.unsampled, rounds.off, ledger);
  } finally {
    for (const stack of Object.values(stacks).reverse()) await stack.stop();
  }
  try {
    await floor(receiver.endpoint, Math.max(2, Math.round(DURATION / 2)), pageBytes);
  } finally {
    await receiver.stop();
  }
}

/**
 * The always-off side (BENCH_TRACING_UNSAMPLED): its throughput against tracing off, and how much
 * of the traced side's added CPU per request it already pays; the rest is what recording and
 * exporting spans cost.
 */
function reportUnsampled(unsampled: LoadResult[], off: LoadResult[], ledger: ReturnType<typeof cpuLedger>): void {
  const result = combine(unsampled);
  const offResult = combine(off);
  const paired = pairedRatio(unsampled, off);
  console.log(
    `  always-off sampler (every instrumentation runs, no span recorded or exported): ${fmt(result)}; against off ${(result.requestsPerSec / offResult.requestsPerSec).toFixed(2)}x, 95 % interval ${paired.low.toFixed(2)}-${paired.high.toFixed(2)}x`,
  );
  for (const name of ['gateway', 'accounts', 'machine']) {
    const added = (side: string) => ledger.perRequest(side, name) - ledger.perRequest('off', name);
    console.log(
      `  CPU per request, ${name.padEnd(8)}: always-off adds ${added('unsampled').toFixed(0)} µs of tracing's ${added('on').toFixed(0)}; recording and exporting spans the other ${(added('on') - added('unsampled')).toFixed(0)} µs`,
    );
  }
}

/**
 * What tracing costs with nothing of ours traced: the bare server of traced-bare-server.ts (the
 * gateway's own tracing set-up, one server span per request from the maintained HTTP
 * instrumentation) against the same server untraced, in alternating rounds at the same load,
 * answering a body of the list page's size. The gateway's added CPU per request above, less this,
 * is what its own spans and code under tracing cost.
 *
 * A third side splits the floor: the same set-up with the server span made by hand (the API's
 * startSpan and end, the instrumentation's attributes), on a path the instrumentation leaves
 * alone. What it adds is the SDK's part (start, end, batch, export), with the few microseconds of
 * the instrumentation's check that leaves the path alone; the rest of the floor is the HTTP
 * instrumentation's own code, about what a server span of ours could save.
 */
async function floor(endpoint: string, slice: number, bodyBytes: number): Promise<void> {
  const bare = (env: Record<string, string>) => startServerScript(path.join(__dirname, 'support/traced-bare-server.js'), { ...env, BENCH_BODY_BYTES: String(bodyBytes) });
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_TRACES_SAMPLER: 'always_on' };
  const sides = ['off', 'on', 'byHand'] as const;
  const servers = {
    off: await bare({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }),
    on: await bare({ ...traced, BENCH_SPAN: '' }),
    byHand: await bare({ ...traced, BENCH_SPAN: 'by-hand' }),
  };
  try {
    // /healthz is among the paths the kit's set-up gives no instrumentation span (sdk.ts).
    const target = (side: (typeof sides)[number]) => ({ url: `${servers[side].url}${side === 'byHand' ? '/healthz' : '/v1/accounts'}?limit=50`, connections: CONNECTIONS });
    for (const side of sides) await load({ ...target(side), durationSec: 2 });
    const ledger = cpuLedger();
    await alternate(sides, ROUNDS, (side) => ledger.round(side, { server: servers[side].pid }, target(side), slice));
    const [offCpu, onCpu, byHandCpu] = sides.map((side) => ledger.perRequest(side, 'server'));
    console.log(
      `  floor: a bare node:http server (${bodyBytes} bytes) with the gateway's tracing set-up: off ${offCpu.toFixed(0)} µs, on ${onCpu.toFixed(0)} µs of CPU per request (the SDK and the HTTP instrumentation add ${(onCpu - offCpu).toFixed(0)} µs for one server span)`,
    );
    console.log(
      `  floor, split: the same span made by hand adds ${(byHandCpu - offCpu).toFixed(0)} µs (the SDK's part, and the instrumentation's check of the path); the HTTP instrumentation's own code ${(onCpu - byHandCpu).toFixed(0)} µs`,
    );
  } finally {
    await Promise.all(sides.map((side) => servers[side].stop()));
  }
}
