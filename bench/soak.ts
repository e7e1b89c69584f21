/**
 * Issue 12's soak (`npm run bench -- soak`): the product as it runs (every service in its own
 * process, real PostgreSQL), under a steady mixed load for SOAK_MINUTES (default 10):
 *   list reads (GET /v1/accounts, GET /v1/events), claims (POST /v1/accounts/claim, with the pool
 *   topped up by POST /v1/accounts), orders opened and closed on claimed accounts while quotes are
 *   published at 50/s, and webhook deliveries of every event to a local HTTPS receiver.
 * Every minute it prints throughput, latency p99, each process's RSS and event-loop delay p99 (from
 * the processes' own /metrics: the gateway's, and AUTH/ACCOUNTS/WEBHOOKS/PANEL_METRICS_PORT), and
 * table sizes. Retention runs with short horizons (SOAK_RETENTION, default 1m, every 20 s), so the
 * webhooks service's deliveries and events copy stay flat while the event feed grows.
 * Target: the last minute's RSS (every process) and p99 within 20 % of the second minute's, and
 * no 5xx. The load generator shares the machine with the stack and PostgreSQL: figures are a floor.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createServiceClient, metricValue, Mode } from '@propdesk/kit';
import { authv1, tradingv1 } from '@propdesk/proto';
import { freePort, startProcessStack, type ProcessStack } from './support/stack';
import { startBenchReceiver } from './webhooks/receiver';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RETENTION = process.env.SOAK_RETENTION ?? '1m';
/** Per second. */
const RATES = {
  listAccounts: Number(process.env.SOAK_READS_PER_SEC ?? 40),
  listEvents: 4,
  claim: Number(process.env.SOAK_CLAIMS_PER_SEC ?? 2),
  order: Number(process.env.SOAK_ORDERS_PER_SEC ?? 3),
  quote: 50,
};
const QUOTED = [
  { symbol: 'EURUSD', mid: 1.08, spread: 0.0001, step: 0.00005, digits: 5 },
  { symbol: 'GBPUSD', mid: 1.27, spread: 0.0001, step: 0.00005, digits: 5 },
  { symbol: 'USDJPY', mid: 150, spread: 0.01, step: 0.005, digits: 3 },
];
const TABLES = ['webhooks.deliveries', 'webhooks.delivery_attempts', 'webhooks.events', 'accounts.events', 'accounts.equity_minutes', 'accounts.positions', 'auth.sessions'];

interface Sample {
  kind: string;
  ms: number;
  status: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Minute {
  minute: number;
  requests: number;
  perSec: number;
  p99: number;
  byKind: Record<string, { n: number; p99: number }>;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  errors: number;
  deliveries: number;
  processes: Record<string, { rssMb: number; loopP99Ms: number }>;
  tables: Record<string, number>;
}

export async function run(): Promise<void> {
  const receiver = await startBenchReceiver();
  const metricsPorts = { auth: await freePort(), accounts: await freePort(), webhooks: await freePort(), panel: await freePort() };
  const stack: ProcessStack = await startProcessStack({
    REDIS_URL: '',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_EGRESS_PORTS: 'any',
    WEBHOOK_CA_FILE: receiver.certFile,
    WEBHOOK_POLL_INTERVAL_MS: '200',
    RATE_LIMIT_READ_PER_MIN: '10000000',
    RATE_LIMIT_WRITE_PER_MIN: '10000000',
    RATE_LIMIT_IP_PER_MIN: '10000000',
    RETENTION_INTERVAL_MS: '20000',
    WEBHOOK_DELIVERIES_RETENTION: RETENTION,
    WEBHOOK_EVENTS_RETENTION: RETENTION,
    AUTH_METRICS_PORT: String(metricsPorts.auth),
    ACCOUNTS_METRICS_PORT: String(metricsPorts.accounts),
    WEBHOOKS_METRICS_PORT: String(metricsPorts.webhooks),
    PANEL_METRICS_PORT: String(metricsPorts.panel),
  });
  const pg = new Client({ connectionString: stack.db.url });
  await pg.connect();
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, stack.env.AUTH_GRPC_ADDRESS, 10_000);
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, stack.env.ACCOUNTS_GRPC_ADDRESS, 10_000);
  const timers: NodeJS.Timeout[] = [];
  try {
    const org = await auth.call.createOrganization({ name: 'Soak Firm', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '1000000' });
    const organizationId = org.organization!.id;
    const token = (await auth.call.createApiKey({ organizationId, mode: Mode.MODE_LIVE, name: 'soak', scopes: ['accounts:read', 'accounts:write', 'trading:write', 'credentials:read'] })).token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    let samples: Sample[] = [];
    const call = async (kind: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> | undefined }> => {
      const started = performance.now();
      try {
        const res = await fetch(stack.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        const json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        samples.push({ kind, ms: performance.now() - started, status: res.status });
        return { status: res.status, json };
      } catch {
        samples.push({ kind, ms: performance.now() - started, status: 0 });
        return { status: 0, json: undefined };
      }
    };

    const hook = await call('setup', 'POST', '/v1/webhooks', {
      url: `https://127.0.0.1:${receiver.port}/soak`,
      events: ['account.created', 'account.assigned', 'position.opened', 'position.closed', 'account.breached'],
    });
    if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}`);

    // Quotes first, so orders find prices.
    const mids = QUOTED.map((q) => q.mid);
    let quoteTurn = 0;
    const publishQuote = async () => {
      const i = quoteTurn++ % QUOTED.length;
      const q = QUOTED[i];
      mids[i] = Math.max(q.mid * 0.9, Math.min(q.mid * 1.1, mids[i] + (Math.random() - 0.5) * 2 * q.step));
      const bid = Number(mids[i].toFixed(q.digits));
      const started = performance.now();
      try {
        await trading.call.publishQuote({ quote: { symbol: q.symbol, bid, ask: Number((bid + q.spread).toFixed(q.digits)), time: new Date() } });
        samples.push({ kind: 'quote', ms: performance.now() - started, status: 200 });
      } catch {
        samples.push({ kind: 'quote', ms: performance.now() - started, status: 503 });
      }
    };
    for (let i = 0; i < QUOTED.length; i += 1) await publishQuote();

    let unassigned = 0;
    let provisioning = false;
    const topUp = async () => {
      if (provisioning || unassigned >= 60) return;
      provisioning = true;
      const res = await call('provision', 'POST', '/v1/accounts', { count: 50 });
      if (res.status === 201) unassigned += 50;
      provisioning = false;
    };
    await topUp();
    const claimed: number[] = [];
    let claimSeq = 0;
    const claim = async () => {
      if (unassigned <= 0) return void topUp();
      unassigned -= 1;
      claimSeq += 1;
      const res = await call('claim', 'POST', '/v1/accounts/claim', { name: `Soak Trader ${claimSeq}`, email: `soak-${claimSeq}-${randomBytes(3).toString('hex')}@example.com` });
      const account = (res.json?.account as { number?: number } | undefined)?.number;
      if (res.status === 200 && account) claimed.push(account);
      if (claimed.length > 200) claimed.shift();
      void topUp();
    };
    const order = async () => {
      if (claimed.length === 0) return;
      const account = claimed[Math.floor(Math.random() * claimed.length)];
      const q = QUOTED[Math.floor(Math.random() * QUOTED.length)];
      const opened = await call('order', 'POST', `/v1/accounts/${account}/positions`, { symbol: q.symbol, side: Math.random() < 0.5 ? 'buy' : 'sell', volume: 0.01 });
      const id = opened.json?.id;
      if (opened.status === 201 && typeof id === 'string') {
        setTimeout(() => void call('close', 'POST', `/v1/accounts/${account}/positions/${id}/close`), 1000 + Math.random() * 2000).unref();
      }
    };

    // Open loop: every 20 ms, each kind sends what its rate owes for the time that passed (requests
    // do not wait for each other, and a late tick on a busy machine catches up).
    const started = Date.now();
    let lastTick = performance.now();
    const owed: Record<keyof typeof RATES, number> = { listAccounts: 0, listEvents: 0, claim: 0, order: 0, quote: 0 };
    const actions: Record<keyof typeof RATES, () => Promise<unknown>> = {
      listAccounts: () => call('list accounts', 'GET', '/v1/accounts?limit=50'),
      listEvents: () => call('list events', 'GET', '/v1/events?limit=50'),
      claim,
      order,
      quote: publishQuote,
    };
    timers.push(
      setInterval(() => {
        const now = performance.now();
        const seconds = Math.min(1, (now - lastTick) / 1000);
        lastTick = now;
        for (const kind of Object.keys(RATES) as Array<keyof typeof RATES>) {
          owed[kind] += RATES[kind] * seconds;
          while (owed[kind] >= 1) {
            owed[kind] -= 1;
            void actions[kind]();
          }
        }
      }, 20),
    );

    const scrape = async (url: string): Promise<{ rssMb: number; loopP99Ms: number }> => {
      try {
        const text = await (await fetch(url)).text();
        return {
          rssMb: (metricValue(text, 'process_resident_memory_bytes') ?? NaN) / 1024 / 1024,
          loopP99Ms: (metricValue(text, 'nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
        };
      } catch {
        return { rssMb: NaN, loopP99Ms: NaN };
      }
    };
    const metricsUrls: Record<string, string> = {
      gateway: `${stack.url}/metrics`,
      ...Object.fromEntries(Object.entries(metricsPorts).map(([name, port]) => [name, `http://127.0.0.1:${port}/metrics`])),
    };
    // A first scrape starts each process's event-loop window with the load.
    await Promise.all(Object.values(metricsUrls).map((u) => scrape(u)));

    const minutes: Minute[] = [];
    let deliveredBefore = receiver.receipts.length;
    console.log(
      `soak: ${MINUTES} min; per second: ${RATES.listAccounts} account lists, ${RATES.listEvents} event-feed reads, ${RATES.claim} claims, ${RATES.order} orders (each closed 1-3 s later), ${RATES.quote} quotes; retention horizon ${RETENTION}`,
    );
    for (let m = 1; m <= MINUTES; m += 1) {
      await new Promise((resolve) => setTimeout(resolve, started + m * 60_000 - Date.now()));
      const window = samples.filter((s) => s.kind !== 'setup');
      samples = [];
      const rest = window.filter((s) => s.kind !== 'quote');
      const byKind: Minute['byKind'] = {};
      for (const kind of new Set(window.map((s) => s.kind))) {
        const of = window.filter((s) => s.kind === kind);
        byKind[kind] = { n: of.length, p99: percentile(of.map((s) => s.ms), 99) };
      }
      const processes: Minute['processes'] = {};
      for (const [name, url] of Object.entries(metricsUrls)) processes[name] = await scrape(url);
      const tables: Record<string, number> = {};
      for (const table of TABLES) tables[table] = Number((await pg.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      const minute: Minute = {
        minute: m,
        requests: rest.length,
        perSec: rest.length / 60,
        p99: percentile(rest.map((s) => s.ms), 99),
        byKind,
        s2xx: rest.filter((s) => s.status >= 200 && s.status < 300).length,
        s4xx: rest.filter((s) => s.status >= 400 && s.status < 500).length,
        s5xx: window.filter((s) => s.status >= 500).length,
        errors: window.filter((s) => s.status === 0).length,
        deliveries: receiver.receipts.length - deliveredBefore,
        processes,
        tables,
      };
      deliveredBefore = receiver.receipts.length;
      minutes.push(minute);
      console.log(
        `min ${m}: ${minute.perSec.toFixed(1)} req/s REST (+${((byKind.quote?.n ?? 0) / 60).toFixed(1)} quotes/s), p99 ${minute.p99.toFixed(1)} ms; 2xx ${minute.s2xx}, 4xx ${minute.s4xx}, 5xx ${minute.s5xx}, errors ${minute.errors}; webhook deliveries ${minute.deliveries}`,
      );
      console.log(`  p99 by kind: ${Object.entries(byKind).map(([k, v]) => `${k} ${v.p99.toFixed(1)} ms (${v.n})`).join(', ')}`);
      console.log(`  RSS / event-loop p99: ${Object.entries(processes).map(([k, v]) => `${k} ${v.rssMb.toFixed(0)} MB / ${v.loopP99Ms.toFixed(1)} ms`).join(', ')}`);
      console.log(`  rows: ${Object.entries(tables).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
    for (const t of timers) clearInterval(t);

    if (minutes.length >= 3) {
      const second = minutes[1];
      const last = minutes[minutes.length - 1];
      const problems: string[] = [];
      const within = (a: number, b: number) => a <= b * 1.2;
      if (!within(last.p99, second.p99)) problems.push(`p99 ${last.p99.toFixed(1)} ms vs ${second.p99.toFixed(1)} ms in minute 2`);
      for (const [name, p] of Object.entries(last.processes)) {
        if (!within(p.rssMb, second.processes[name].rssMb)) problems.push(`${name} RSS ${p.rssMb.toFixed(0)} MB vs ${second.processes[name].rssMb.toFixed(0)} MB`);
      }
      const fivexx = minutes.reduce((n, x) => n + x.s5xx, 0);
      if (fivexx > 0) problems.push(`${fivexx} 5xx answers`);
      console.log(`soak target (last minute within 20 % of the second, zero 5xx): ${problems.length === 0 ? 'met' : `NOT met: ${problems.join('; ')}`}`);
      if (problems.length > 0) process.exitCode = 1;
    }
  } finally {
    for (const t of timers) clearInterval(t);
    auth.close();
    trading.close();
    await pg.end();
    await stack.stop();
    await receiver.close();
  }
}
