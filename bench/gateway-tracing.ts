/**
 * SPEC 16's cost of tracing: GET /v1/accounts?limit=50 through the product (every component its
 * own process, scripts/stack.mjs) with tracing off and with tracing on side by side: two stacks
 * at once, measured in alternating rounds (off on, on off, ...) so that a slow spell of a shared
 * machine weighs on both. Tracing on means what SPEC 16 prices: the always-on sampler, every span
 * exported over OTLP/HTTP (protobuf, the batch processor's defaults) to a local receiver that
 * reads and discards each request. Target: on >= 0.90x the throughput of off.
 *
 * "Off" runs the product as it is without OTEL_* variables: no SDK module loaded, one boolean
 * check per call site (test/observability/telemetry-settings.test.ts checks the modules).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { combine, fmt, load, type LoadResult } from './support/load';
import { admin, startProcessStack, type ProcessStack } from './support/stack';

const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATH = '/v1/accounts?limit=50';

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
  const off = await startProcessStack({ ...limits, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
  let on: ProcessStack | undefined;
  try {
    on = await startProcessStack({
      ...limits,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
    });
    const sides = { off: { stack: off, token: await seed(off) }, on: { stack: on, token: await seed(on) } };
    const target = (side: 'off' | 'on') => ({ url: sides[side].stack.url + PATH, headers: { authorization: `Bearer ${sides[side].token}` }, connections: CONNECTIONS });
    await load({ ...target('off'), durationSec: 3 });
    await load({ ...target('on'), durationSec: 3 });
    const rounds: Record<'off' | 'on', LoadResult[]> = { off: [], on: [] };
    const slice = Math.max(2, Math.round(DURATION / 2));
    const exportsBefore = receiver.exports();
    const bytesBefore = receiver.bytes();
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of order) rounds[side].push(await load({ ...target(side), durationSec: slice }));
    }
    const offResult = combine(rounds.off);
    const onResult = combine(rounds.on);
    console.log(`GET ${PATH}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${slice} s each; two stacks (tracing off, tracing on)`);
    console.log('load generator pinned to its own core with taskset where the machine has more than one');
    rounds.off.forEach((o, i) => {
      const t = rounds.on[i];
      console.log(`  round ${i + 1}: off ${fmt(o)}; on ${fmt(t)}; throughput ${(t.requestsPerSec / o.requestsPerSec).toFixed(2)}x`);
    });
    console.log(`  tracing off ${fmt(offResult)}`);
    console.log(`  tracing on  ${fmt(onResult)}`);
    console.log(
      `  on/off: throughput ${(onResult.requestsPerSec / offResult.requestsPerSec).toFixed(2)}x (target >= 0.90), p99 ${(onResult.p99 / Math.max(offResult.p99, 1)).toFixed(2)}x`,
    );
    const seconds = ROUNDS * slice;
    console.log(
      `  receiver: ${((receiver.exports() - exportsBefore) / seconds).toFixed(1)} OTLP exports and ${((receiver.bytes() - bytesBefore) / seconds / 1024).toFixed(0)} KiB per second of tracing-on load`,
    );
  } finally {
    await on?.stop();
    await off.stop();
    await receiver.stop();
  }
}
