/**
 * The gateway's key cache against a real in-test gRPC AuthService double: a cached key costs no
 * auth round trip while the invalidation stream is covered; failures are never cached; an
 * invalidation drops the entry and is acknowledged; a lost or silent stream means no cache.
 */
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import { authv1, accountsv1 } from '@propdesk/proto';
import { AppError, createLogger, implementServiceDouble, Mode, sha256Hex, startGrpcServer, type StartedGrpcServer } from '@propdesk/kit';
import { start, type StartedGateway } from '../main';

const GOOD = `pfx_live_${'G'.repeat(40)}`;
const logger = createLogger('test', { level: 'silent' });

let verifyCalls = 0;
const requestIdsSeen: string[] = [];
const acks: string[] = [];
const streams = new Set<ServerWritableStream<authv1.WatchInvalidationsRequest, authv1.WatchInvalidationsResponse>>();
let heartbeats = true;
let streamsRefused = false;
let seq = 0;
let heartbeatTimer: NodeJS.Timeout;
let grpc: StartedGrpcServer;
let gateway: StartedGateway;

function push(message: Partial<authv1.WatchInvalidationsResponse>): void {
  seq += 1;
  for (const stream of streams) {
    stream.write({ seq: String(seq), apiKeyId: '', organizationId: '', flushAll: false, keyFingerprints: [], fingerprintsComplete: false, ...message });
  }
}

beforeAll(async () => {
  const auth = implementServiceDouble<authv1.AuthServiceServer>(authv1.AuthServiceService, logger, {
    async verifyApiKey(request) {
      verifyCalls += 1;
      if (request.tokenSha256 !== sha256Hex(GOOD)) throw new AppError('invalid_api_key', 'invalid API key');
      return { apiKeyId: 'key-1', organizationId: 'org-1', scopes: ['accounts:read'], planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, mode: Mode.MODE_LIVE };
    },
    async ackInvalidation(request) {
      acks.push(request.seq);
      return {};
    },
    watchInvalidations(call: ServerWritableStream<authv1.WatchInvalidationsRequest, authv1.WatchInvalidationsResponse>) {
      if (streamsRefused) {
        call.emit('error', { code: status.UNAVAILABLE, details: 'invalidation hub down' });
        return;
      }
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      seq += 1;
      call.write({ seq: String(seq), apiKeyId: '', organizationId: '', flushAll: true, keyFingerprints: [], fingerprintsComplete: false });
    },
  });
  const accounts = implementServiceDouble<accountsv1.AccountsServiceServer>(accountsv1.AccountsServiceService, logger, {
    async listAccounts(_request, ctx) {
      requestIdsSeen.push(ctx.requestId);
      return { accounts: [], nextPageToken: '', accountsJson: Buffer.from('[]') };
    },
  });
  grpc = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: [
      { name: 'propdesk.auth.v1.AuthService', definition: authv1.AuthServiceService, implementation: auth },
      { name: 'propdesk.accounts.v1.AccountsService', definition: accountsv1.AccountsServiceService, implementation: accounts },
    ],
  });
  heartbeatTimer = setInterval(() => {
    if (heartbeats) push({});
  }, 200);
  gateway = await start(
    { PORT: '0', AUTH_GRPC_ADDRESS: grpc.address, ACCOUNTS_GRPC_ADDRESS: grpc.address, WEBHOOKS_GRPC_ADDRESS: grpc.address, LOG_LEVEL: 'silent' },
    { logger },
  );
  await waitFor(() => streams.size === 1);
  await sleep(300);
});

afterAll(async () => {
  clearInterval(heartbeatTimer);
  await gateway?.stop();
  for (const stream of streams) stream.end();
  await grpc?.shutdown(1000);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}

async function get(token: string): Promise<number> {
  const res = await fetch(`${gateway.address}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('request ids', () => {
  it('forwards the x-request-id of the HTTP request to the service and echoes it', async () => {
    const res = await fetch(`${gateway.address}/v1/accounts`, { headers: { authorization: `Bearer ${GOOD}`, 'x-request-id': 'trace-me-42' } });
    await res.arrayBuffer();
    expect(res.headers.get('x-request-id')).toBe('trace-me-42');
    expect(requestIdsSeen).toContain('trace-me-42');
  });

  it('generates one when the client sends none or an oversized one', async () => {
    const res = await fetch(`${gateway.address}/v1/accounts`, { headers: { authorization: `Bearer ${GOOD}`, 'x-request-id': 'x'.repeat(129) } });
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id') ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdsSeen).toContain(id);
  });
});

describe('the key cache', () => {
  it('verifies a key once, then serves it from the cache without an auth round trip', async () => {
    push({ flushAll: true });
    const flushed = String(seq);
    await waitFor(() => acks.includes(flushed));
    const before = verifyCalls;
    for (let i = 0; i < 5; i += 1) expect(await get(GOOD)).toBe(200);
    expect(verifyCalls - before).toBe(1);
  });

  it('never caches a failed lookup', async () => {
    const before = verifyCalls;
    for (let i = 0; i < 3; i += 1) expect(await get(`pfx_live_${'U'.repeat(40)}`)).toBe(401);
    expect(verifyCalls - before).toBe(3);
  });

  it('drops an invalidated key before acknowledging it, so the next request verifies again', async () => {
    await get(GOOD);
    push({ apiKeyId: 'key-1' });
    const pushed = String(seq);
    await waitFor(() => acks.includes(pushed));
    const before = verifyCalls;
    expect(await get(GOOD)).toBe(200);
    expect(verifyCalls - before).toBe(1);
  });

  it('stops trusting the cache when the stream goes silent for 3 s', async () => {
    await get(GOOD);
    heartbeats = false;
    await sleep(3300);
    const before = verifyCalls;
    await get(GOOD);
    await get(GOOD);
    expect(verifyCalls - before).toBe(2);
    heartbeats = true;
    await sleep(400);
  });

  it('verifies every request while the stream is down, and caches again once it reconnects', async () => {
    streamsRefused = true;
    for (const stream of streams) stream.emit('error', { code: status.UNAVAILABLE, details: 'invalidation hub restarting' });
    streams.clear();
    await sleep(100);
    const before = verifyCalls;
    await get(GOOD);
    await get(GOOD);
    expect(verifyCalls - before).toBe(2);
    streamsRefused = false;
    await waitFor(() => streams.size === 1);
    await sleep(300);
    const afterReconnect = verifyCalls;
    for (let i = 0; i < 3; i += 1) await get(GOOD);
    expect(verifyCalls - afterReconnect).toBe(1);
  });
});
