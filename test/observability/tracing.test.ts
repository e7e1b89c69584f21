/**
 * SPEC 16 end to end, against the stack as `npm start` runs it (node scripts/start.mjs: one
 * process per component) with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real OTLP/HTTP receiver:
 * one REST write is one trace across processes — the caller's traceparent continued by the
 * gateway, its gRPC call, the accounts service and its PostgreSQL statements, and the webhook
 * delivery the write's outbox event caused, down to the HTTP request to the receiver. The logs
 * written under a span carry its ids; every gRPC server counts and times its calls by method.
 *
 * Ports 19320-19324 (the stack) and 19325-19328 (metrics) are fixed, outside the ephemeral range.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, generateCertificate, REPOSITORY_ROOT as ROOT, startHttpsReceiver, type HttpsReceiver, type TestCertificate, type TestDatabase } from '@propdesk/kit/testing';
import { killLeftovers, launch, portsFrom, waitUntilGone, type StackRun } from '../faults/stack-process';
import { createTenant, type Tenant } from '../faults/retrying-client';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';

jest.setTimeout(300_000);

const ports = portsFrom(19320);
const METRICS = { auth: 19325, accounts: 19326, webhooks: 19327, panel: 19328 };
const gateway = `http://127.0.0.1:${ports.PORT}`;

let db: TestDatabase;
let run: StackRun | undefined;
let cert: TestCertificate;
let hooks: HttpsReceiver;
let otlp: OtlpReceiver;
let tenant: Tenant;

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b'], { cwd: ROOT, stdio: 'inherit' });
  db = await createTestDatabase('pd_tracing');
  cert = generateCertificate();
  hooks = await startHttpsReceiver(cert);
  otlp = await startOtlpReceiver();
  run = launch({
    via: 'node',
    ports,
    env: {
      DATABASE_URL: db.url,
      REDIS_URL: undefined,
      PROPDESK_DATA_DIR: undefined,
      SIMULATE_MARKET: 'false',
      WEBHOOK_CA_FILE: cert.certFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_EGRESS_PORTS: 'any',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      WEBHOOK_RETRY_SCHEDULE: '3600',
      AUTH_METRICS_PORT: String(METRICS.auth),
      ACCOUNTS_METRICS_PORT: String(METRICS.accounts),
      WEBHOOKS_METRICS_PORT: String(METRICS.webhooks),
      PANEL_METRICS_PORT: String(METRICS.panel),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: undefined,
      OTEL_SERVICE_NAME: undefined,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      // Export within a fifth of a second instead of the default five.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
  });
  await run.ready;
  tenant = await createTenant(`127.0.0.1:${ports.AUTH_GRPC_PORT}`, 10);
});

afterAll(async () => {
  tenant?.auth.close();
  if (run) {
    process.kill(-run.child.pid!, 'SIGTERM');
    const left = await waitUntilGone(run, 25_000);
    if (left.processes.length > 0) await killLeftovers(run);
  }
  await otlp?.close();
  await hooks?.close();
  cert?.remove();
  await db?.drop();
});

async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const one = (spans: ReceivedSpan[], what: string, test: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(test);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length} among ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
  return found[0];
};

describe('one REST write is one trace, from the caller to the webhook it caused', () => {
  const traceId = hex(16);
  const callerSpanId = hex(8);
  let accountNumber: number;
  let trace: ReceivedSpan[];
  let requestId: string;

  beforeAll(async () => {
    const created = await api<{ url: string }>('POST', '/v1/webhooks', { url: hooks.url('/assigned'), events: ['account.assigned'] });
    expect(created.status).toBe(201);
    const accounts = await api<{ data: Array<{ number: number }> }>('POST', '/v1/accounts', { count: 1 });
    expect(accounts.status).toBe(201);
    accountNumber = accounts.body.data[0].number;

    const assigned = await api('PUT', `/v1/accounts/${accountNumber}/trader`, { name: 'Jane Trader', email: 'jane.traced@example.com' }, {
      traceparent: `00-${traceId}-${callerSpanId}-01`,
    });
    expect(assigned.status).toBe(200);
    requestId = assigned.headers.get('x-request-id')!;
    await hooks.waitFor(1, '/assigned', 30_000);
    trace = (
      // Each process exports on its own schedule: wait for every part of the trace, not only the last.
      await otlp.waitFor((spans) => {
        const ours = spans.filter((s) => s.traceId === traceId);
        return (
          ours.some((s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER) &&
          ours.some((s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER) &&
          ours.some((s) => s.service === 'propdesk-webhooks' && s.kind === SPAN_KIND.CLIENT) &&
          // The attempt's span ends after its HTTP request's: it may come in a later export.
          ours.some((s) => s.service === 'propdesk-webhooks' && s.name === 'deliver account.assigned')
        );
      })
    ).filter((s) => s.traceId === traceId);
  });

  it('continues the caller\'s traceparent in the gateway\'s server span, named by method and route template', () => {
    const server = one(trace, 'gateway server span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
    expect(server.name).toBe('PUT /v1/accounts/{number}/trader');
    expect(server.parentSpanId).toBe(callerSpanId);
    expect(server.attributes).toMatchObject({
      'http.route': '/v1/accounts/{number}/trader',
      'http.response.status_code': 200,
      'propdesk.organization_id': tenant.orgId,
      'propdesk.request_id': requestId,
    });
  });

  it('carries it over gRPC to the accounts service, whose statements are PostgreSQL spans without bound values', () => {
    const server = one(trace, 'gateway server span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
    const client = one(trace, 'AssignTrader client span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.CLIENT && s.name.endsWith('/AssignTrader'));
    const handler = one(trace, 'AssignTrader server span', (s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER && s.name.endsWith('/AssignTrader'));
    expect(client.name).toBe('grpc.propdesk.accounts.v1.AccountsService/AssignTrader');
    expect(handler.name).toBe(client.name);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(handler.parentSpanId).toBe(client.spanId);
    expect(handler.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'propdesk.accounts.v1.AccountsService',
      'rpc.method': 'AssignTrader',
      'propdesk.organization_id': tenant.orgId,
      'propdesk.request_id': requestId,
    });

    const statements = trace.filter((s) => s.service === 'propdesk-accounts' && s.scope.includes('pg') && s.kind === SPAN_KIND.CLIENT);
    expect(statements.length).toBeGreaterThan(0);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    for (const statement of statements) {
      // Every statement descends from the handler's span.
      let parent = byId.get(statement.parentSpanId);
      while (parent && parent.spanId !== handler.spanId) parent = byId.get(parent.parentSpanId);
      expect(parent?.spanId).toBe(handler.spanId);
      expect(statement.attributes['db.system'] ?? statement.attributes['db.system.name']).toBe('postgresql');
      expect(Object.keys(statement.attributes).filter((k) => /param|values/i.test(k))).toEqual([]);
      // Named by its command and database (pg.query:SELECT <db>), not by its prepared statement's hash (pd_9a2b…).
      expect(statement.name).toMatch(/^pg\.query:[A-Z]+ \S+$/);
    }
    expect(statements.some((s) => s.name.startsWith('pg.query:INSERT ') && s.attributes['db.postgresql.plan'] !== undefined)).toBe(true);
    expect(statements.some((s) => /INSERT INTO events/.test(String(s.attributes['db.statement'] ?? s.attributes['db.query.text'])))).toBe(true);
    // Written in the request, never a value of it: not the trader's email, not the key.
    const recorded = JSON.stringify(trace.map((s) => [s.name, s.attributes]));
    expect(recorded).not.toContain('jane.traced@example.com');
    expect(recorded).not.toContain(tenant.token);
  });

  it('ends in the webhooks service: the account.assigned delivery attempt and its HTTP request to the receiver', () => {
    const handler = one(trace, 'AssignTrader server span', (s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER && s.name.endsWith('/AssignTrader'));
    const delivery = one(trace, 'delivery span', (s) => s.service === 'propdesk-webhooks' && s.name === 'deliver account.assigned');
    expect(delivery.parentSpanId).toBe(handler.spanId);
    expect(delivery.attributes).toMatchObject({
      'propdesk.event.type': 'account.assigned',
      'propdesk.organization_id': tenant.orgId,
      'propdesk.webhook.attempt': 1,
      'propdesk.webhook.outcome': 'succeeded',
      'http.response.status_code': 200,
    });
    const request = one(trace, 'delivery HTTP client span', (s) => s.service === 'propdesk-webhooks' && s.scope.includes('undici') && s.parentSpanId === delivery.spanId);
    expect(request.kind).toBe(SPAN_KIND.CLIENT);
    // The attempt is recorded under its span too.
    expect(trace.some((s) => s.service === 'propdesk-webhooks' && s.scope.includes('pg') && s.parentSpanId === delivery.spanId)).toBe(true);
    expect(request.attributes['http.request.method']).toBe('POST');
    expect(request.attributes['url.full']).toBe(hooks.url('/assigned'));
    // Signatures and secrets stay out of spans.
    expect(JSON.stringify(request.attributes)).not.toMatch(/signature|whsec_/i);
  });

  it('logs lines written under a span with its trace_id and span_id beside the request id', () => {
    const lines = run!
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes(traceId))
      .map((l) => JSON.parse(l) as { name: string; trace_id: string; span_id: string; requestId?: string; path?: string });
    const access = lines.find((l) => l.name === 'gateway' && l.path === `/v1/accounts/${accountNumber}/trader`);
    expect(access).toMatchObject({ trace_id: traceId, requestId });
    expect(access?.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('exports every process under its own service name, with the resource attributes of the environment', () => {
    const services = new Set(otlp.spans.map((s) => s.service));
    for (const name of ['propdesk-gateway', 'propdesk-auth', 'propdesk-accounts', 'propdesk-webhooks']) expect(services).toContain(name);
    expect(otlp.spans.every((s) => s.resource['deployment.environment.name'] === 'test')).toBe(true);
    // Probes and the streams that last as long as the processes (and their polls) are not traced:
    // every statement of the accounts service belongs to the trace of a call it handled.
    expect(otlp.spans.filter((s) => /\/(Check|StreamEvents|WatchInvalidations)$/.test(s.name) || s.name === 'GET /healthz')).toEqual([]);
    const handled = new Set(otlp.spans.filter((s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER).map((s) => s.traceId));
    expect(otlp.spans.filter((s) => s.service === 'propdesk-accounts' && s.scope.includes('pg') && !handled.has(s.traceId)).map((s) => s.name)).toEqual([]);
    expect(otlp.encodings.every((e) => e === 'application/x-protobuf')).toBe(true);
  });
});

/** The value of the first sample of `name` whose labels include `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('a list request is one trace too, though its gRPC hop is a message of a long-lived call', () => {
  it('has a client span in the gateway and a server span in the accounts service per request, with its statements under it', async () => {
    const traceIds = [hex(16), hex(16)];
    for (const traceId of traceIds) {
      const listed = await api<{ data: unknown[] }>('GET', '/v1/accounts?limit=5', undefined, { traceparent: `00-${traceId}-${hex(8)}-01` });
      expect(listed.status).toBe(200);
    }
    // Each process exports on its own schedule: wait for both sides of both traces.
    const spans = await otlp.waitFor((all) =>
      traceIds.every(
        (id) =>
          all.some((s) => s.traceId === id && s.service === 'propdesk-accounts' && s.scope.includes('pg')) &&
          all.some((s) => s.traceId === id && s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER) &&
          all.some((s) => s.traceId === id && s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.CLIENT),
      ),
    );
    for (const traceId of traceIds) {
      const trace = spans.filter((s) => s.traceId === traceId);
      const server = one(trace, 'gateway server span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
      const client = one(trace, 'list client span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.CLIENT);
      const handler = one(trace, 'list server span', (s) => s.service === 'propdesk-accounts' && s.kind === SPAN_KIND.SERVER);
      expect(client.name).toBe('propdesk.accounts.v1.AccountsService/StreamListAccounts');
      expect(handler.name).toBe(client.name);
      expect(client.parentSpanId).toBe(server.spanId);
      expect(handler.parentSpanId).toBe(client.spanId);
      expect(handler.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.method': 'StreamListAccounts' });
      const statements = trace.filter((s) => s.service === 'propdesk-accounts' && s.scope.includes('pg'));
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) expect(statement.parentSpanId).toBe(handler.spanId);
    }
  });
});

describe('the gateway carries each request\'s trace context itself (it keeps no AsyncLocalStorage)', () => {
  it('passes it to the panel it proxies to, whose server span joins the request\'s trace', async () => {
    const traceId = hex(16);
    const res = await fetch(`${gateway}/panel/`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const spans = await otlp.waitFor((all) => ['propdesk-gateway', 'propdesk-panel'].every((service) => all.some((s) => s.traceId === traceId && s.service === service && s.kind === SPAN_KIND.SERVER)));
    const trace = spans.filter((s) => s.traceId === traceId);
    const proxied = one(trace, 'gateway server span', (s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
    const page = one(trace, 'panel server span', (s) => s.service === 'propdesk-panel' && s.kind === SPAN_KIND.SERVER);
    expect(page.parentSpanId).toBe(proxied.spanId);
  });

  it('starts none of its spans outside a request but its own acknowledgements of key invalidations, and never traces its exports', () => {
    // Acknowledging an invalidation the auth service streamed is the gateway's own background work.
    const background = (s: ReceivedSpan) => s.name.endsWith('/AckInvalidation');
    const orphans = otlp.spans.filter((s) => s.service === 'propdesk-gateway' && s.kind !== SPAN_KIND.SERVER && s.parentSpanId === '' && !background(s));
    expect(orphans.map((s) => `${s.name} ${JSON.stringify(s.attributes)}`)).toEqual([]);
    // Its server spans are the requests' own: each has a route or is a page of the panel.
    const servers = otlp.spans.filter((s) => s.service === 'propdesk-gateway' && s.kind === SPAN_KIND.SERVER);
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.filter((s) => !/^(GET|POST|PUT|PATCH|DELETE) /.test(s.name) && !String(s.attributes['url.path'] ?? '').startsWith('/panel')).map((s) => s.name)).toEqual([]);
  });
});

describe('metrics', () => {
  const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const rpc = (service: string, method: string, code: number) => ({ rpc_system: 'grpc', rpc_service: service, rpc_method: method, rpc_grpc_status_code: String(code) });

  it('every gRPC server counts and times its calls by service, method and status code', async () => {
    const accounts = await scrape(METRICS.accounts);
    const assign = rpc('propdesk.accounts.v1.AccountsService', 'AssignTrader', 0);
    expect(sample(accounts, 'rpc_server_requests_total', assign)).toBeGreaterThanOrEqual(1);
    expect(sample(accounts, 'rpc_server_duration_seconds_count', assign)).toBeGreaterThanOrEqual(1);
    expect(sample(accounts, 'rpc_server_duration_seconds_bucket', { ...assign, le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(await scrape(METRICS.auth), 'rpc_server_requests_total', rpc('propdesk.auth.v1.AuthService', 'VerifyApiKey', 0))).toBeGreaterThanOrEqual(1);
    // The gateway's list requests travel as messages of StreamListAccounts calls: each counted and timed as a call.
    const before = sample(accounts, 'rpc_server_requests_total', rpc('propdesk.accounts.v1.AccountsService', 'StreamListAccounts', 0)) ?? 0;
    for (let i = 0; i < 3; i += 1) expect((await api('GET', '/v1/accounts?limit=2')).status).toBe(200);
    const lists = await scrape(METRICS.accounts);
    expect(sample(lists, 'rpc_server_requests_total', rpc('propdesk.accounts.v1.AccountsService', 'StreamListAccounts', 0))).toBe(before + 3);
    expect(sample(lists, 'rpc_server_duration_seconds_count', rpc('propdesk.accounts.v1.AccountsService', 'StreamListAccounts', 0))).toBe(before + 3);
    // A refusal is counted under its own code: NOT_FOUND (5) for an account that does not exist.
    expect((await api('GET', '/v1/accounts/999999999')).status).toBe(404);
    expect(sample(await scrape(METRICS.accounts), 'rpc_server_requests_total', rpc('propdesk.accounts.v1.AccountsService', 'GetAccount', 5))).toBe(1);
    for (const port of [METRICS.auth, METRICS.accounts, METRICS.webhooks]) expect(sample(await scrape(port), 'propdesk_database_up')).toBe(1);
  });

  it('the webhooks service counts deliveries by outcome and reports its backlog', async () => {
    let text = await scrape(METRICS.webhooks);
    expect(sample(text, 'propdesk_webhook_deliveries_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'propdesk_webhook_pending_deliveries')).toBe(0);
    expect(sample(text, 'propdesk_webhook_oldest_pending_delivery_age_seconds')).toBe(0);
    expect(sample(text, 'propdesk_webhook_delivery_lag_seconds')).toBe(0);
    expect(sample(text, 'propdesk_webhook_failing_endpoints')).toBe(0);
    expect(sample(text, 'propdesk_webhook_outbox_backlog_events')).toBe(0);
    expect(sample(text, 'propdesk_webhook_event_consumer_leader')).toBe(1);

    // An endpoint that fails: its delivery waits for a retry an hour later (WEBHOOK_RETRY_SCHEDULE).
    hooks.on('/failing', () => ({ status: 500 }));
    expect((await api('POST', '/v1/webhooks', { url: hooks.url('/failing'), events: ['account.created'] })).status).toBe(201);
    expect((await api('POST', '/v1/accounts', { count: 1 })).status).toBe(201);
    await hooks.waitFor(1, '/failing', 30_000);
    const deadline = Date.now() + 10_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      text = await scrape(METRICS.webhooks);
    } while (sample(text, 'propdesk_webhook_deliveries_total', { outcome: 'retrying' }) !== 1 && Date.now() < deadline);
    expect(sample(text, 'propdesk_webhook_deliveries_total', { outcome: 'retrying' })).toBe(1);
    expect(sample(text, 'propdesk_webhook_pending_deliveries')).toBe(1);
    expect(sample(text, 'propdesk_webhook_oldest_pending_delivery_age_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'propdesk_webhook_failing_endpoints')).toBe(1);
    // Scheduled, not late.
    expect(sample(text, 'propdesk_webhook_delivery_lag_seconds')).toBe(0);
    const failed = await otlp.waitFor((spans) => spans.some((s) => s.name === 'deliver account.created' && s.attributes['propdesk.webhook.outcome'] === 'retrying'));
    expect(failed.find((s) => s.name === 'deliver account.created')).toMatchObject({ statusCode: 2, attributes: { 'http.response.status_code': 500 } });
  });
});
