/**
 * Where one GET /v1/accounts?limit=50 spends its time, hop by hop (issue 35): the stack with
 * tracing on (always-on sampler, OTLP/HTTP JSON to a receiver in this process), requests sent one
 * at a time, each with its own traceparent so that the client's measured time and the trace's spans
 * belong together. Per request:
 *   outside     the client's time minus the gateway's HTTP server span (loopback, HTTP parsing)
 *   gateway     its server span minus its outgoing gRPC calls (routing, auth, limits, rendering)
 *   auth        the gateway's calls to the auth service (0 while its key cache answers)
 *   gRPC        the gateway's ListAccounts client span minus the accounts service's server span
 *   accounts    the service's server span minus its PostgreSQL spans
 *   PostgreSQL  the pg client's spans (the statement's round trip, as the service's driver sees it)
 * Medians of BENCH_HOPS_REQUESTS (default 400) requests after as many to warm up. Tracing has its
 * own cost in every hop: these split a traced request; the gateway bench prices an untraced one.
 * The baseline (bench/support/baseline-server.ts) is timed the same way, one request at a time.
 */
import { randomBytes } from 'node:crypto';
import { seedOrganization, startBaseline } from './support/gateway-sides';
import { startSpanReceiver, type TimedSpan } from './support/span-receiver';
import { serviceNodeOptions, startProcessStack } from './support/stack';

const REQUESTS = Number(process.env.BENCH_HOPS_REQUESTS ?? 400);
const PATH = '/v1/accounts?limit=50';
const SPAN_KIND = { SERVER: 2, CLIENT: 3 };

const ms = (nanos: bigint) => Number(nanos) / 1e6;
const duration = (s: TimedSpan) => ms(s.endNanos - s.startNanos);

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return ms(process.hrtime.bigint() - t);
}

type Hops = Record<'client' | 'outside' | 'gateway' | 'auth' | 'gRPC' | 'accounts' | 'PostgreSQL', number>;

function hopsOf(spans: TimedSpan[], client: number): Hops | undefined {
  const gatewayServer = spans.find((s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
  const gatewayCalls = spans.filter((s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.CLIENT && s.name.includes('/'));
  const listCall = gatewayCalls.find((s) => s.name.includes('AccountsService/'));
  const accountsServer = spans.find((s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER && s.name.includes('AccountsService/'));
  const statements = spans.filter((s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.CLIENT && s.name.startsWith('pg.query'));
  if (!gatewayServer || !listCall || !accountsServer) return undefined;
  const auth = gatewayCalls.filter((s) => s.name.includes('AuthService/')).reduce((sum, s) => sum + duration(s), 0);
  const postgres = statements.reduce((sum, s) => sum + duration(s), 0);
  return {
    client,
    outside: client - duration(gatewayServer),
    gateway: duration(gatewayServer) - duration(listCall) - auth,
    auth,
    gRPC: duration(listCall) - duration(accountsServer),
    accounts: duration(accountsServer) - postgres,
    PostgreSQL: postgres,
  };
}

export async function run(): Promise<void> {
  const receiver = await startSpanReceiver();
  const stack = await startProcessStack({
    RATE_LIMIT_READ_PER_MIN: '100000000',
    RATE_LIMIT_WRITE_PER_MIN: '100000000',
    RATE_LIMIT_IP_PER_MIN: '100000000',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
  try {
    const tokens = await seedOrganization(stack);
    const headers = { authorization: `Bearer ${tokens.read}` };
    const baseline = await startBaseline(stack.env.DATABASE_URL, serviceNodeOptions(stack.env.NODE_OPTIONS));
    const baselineTimes: number[] = [];
    try {
      for (let i = 0; i < REQUESTS; i += 1) await timed(baseline.url + PATH, headers);
      for (let i = 0; i < REQUESTS; i += 1) baselineTimes.push(await timed(baseline.url + PATH, headers));
    } finally {
      await baseline.stop();
    }
    for (let i = 0; i < REQUESTS; i += 1) await timed(stack.url + PATH, headers);
    const clientTimes = new Map<string, number>();
    for (let i = 0; i < REQUESTS; i += 1) {
      const traceId = randomBytes(16).toString('hex');
      const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
      clientTimes.set(traceId, await timed(stack.url + PATH, { ...headers, traceparent }));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const byTrace = new Map<string, TimedSpan[]>();
    for (const span of receiver.spans) if (clientTimes.has(span.traceId)) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
    const hops = [...byTrace.entries()].flatMap(([traceId, spans]) => {
      const h = hopsOf(spans, clientTimes.get(traceId) ?? 0);
      return h ? [h] : [];
    });
    if (hops.length === 0) throw new Error(`no complete trace among ${receiver.spans.length} spans received`);
    console.log(`GET ${PATH}, one request at a time: ${hops.length} traced requests of ${REQUESTS} (tracing on, always_on sampler)`);
    console.log('  hop          median ms   p90 ms   mean ms');
    for (const name of Object.keys(hops[0]) as Array<keyof Hops>) {
      const values = hops.map((h) => h[name]);
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      console.log(`  ${name.padEnd(12)} ${quantile(values, 0.5).toFixed(3).padStart(9)} ${quantile(values, 0.9).toFixed(3).padStart(8)} ${mean.toFixed(3).padStart(9)}`);
    }
    console.log(`  baseline (untraced, in process), client-measured: median ${quantile(baselineTimes, 0.5).toFixed(3)} ms, p90 ${quantile(baselineTimes, 0.9).toFixed(3)} ms`);
  } finally {
    await stack.stop();
    await receiver.close();
  }
}
