/**
 * The gateway's key cache against a real in-test gRPC AuthService double: a cached key costs no
 * auth round trip while the invalidation stream is covered; failures are never cached; an
 * invalidation drops the entry and is acknowledged; a lost or silent stream means no cache.
 */
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import { authv1, accountsv1 } from '@propdesk/proto';
import { AppError, createLogger, Mode, sha256Hex, startGrpcServer, type StartedGrpcServer } from '@propdesk/kit';
import { implementServiceDouble, waitUntil } from '@propdesk/kit/testing';
import { start, type StartedGateway } from '../main';

const GOOD = `pfx_live_${'G'.repeat(40)}`;
const logger = createLogger('test', { level: 'silent' });

let verifyCalls = 0;
const requestIdsSeen: string[] = [];
const acks: string[] = [];
const streams = new Set<ServerWritableStream<authv1.WatchInvalidationsRequest, authv1.WatchInvalidationsResponse>>();
let heartbeats = true;
let streamsRefused = false;
/** Watch attempts refused while streamsRefused is set. */
let refusals = 0;
let seq = 0;
/** The seq of the flush that opens the latest stream: once the gateway acknowledges it, its cache is on. */
let openingSeq = '';
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
        refusals += 1;
        call.emit('error', { code: status.UNAVAILABLE, details: 'invalidation hub down' });
        return;
      }
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      seq += 1;
      openingSeq = String(seq);
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
  await cacheEnabled();
});

afterAll(async () => {
  clearInterval(heartbeatTimer);
  await gateway?.stop();
  for (const stream of streams) stream.end();
  await grpc?.shutdown(1000);
});

const waitFor = (condition: () => boolean, what: string) => waitUntil(condition, { timeoutMs: 5000, intervalMs: 20, what });

/** The gateway has opened a stream and acknowledged the flush it opens with: it uses its cache. */
async function cacheEnabled(): Promise<void> {
  await waitFor(() => streams.size === 1 && acks.includes(openingSeq), 'the opening flush acknowledged');
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
    await waitFor(() => acks.includes(flushed), 'the flush acknowledged');
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
    await waitFor(() => acks.includes(pushed), 'the invalidation acknowledged');
    const before = verifyCalls;
    expect(await get(GOOD)).toBe(200);
    expect(verifyCalls - before).toBe(1);
  });

  it('stops trusting the cache when the stream goes silent for 3 s', async () => {
    await get(GOOD);
    heartbeats = false;
    // The cached key is served until the stream has been silent for 3 s; then it is verified.
    await waitUntil(async () => {
      const calls = verifyCalls;
      await get(GOOD);
      return verifyCalls > calls;
    }, { timeoutMs: 5000, intervalMs: 100, what: 'the cache distrusted' });
    const before = verifyCalls;
    await get(GOOD);
    await get(GOOD);
    expect(verifyCalls - before).toBe(2);
    heartbeats = true;
    // The next heartbeat covers the cache again: a key is served from it.
    await waitUntil(async () => {
      const calls = verifyCalls;
      await get(GOOD);
      return verifyCalls === calls;
    }, { timeoutMs: 5000, what: 'the cache trusted again' });
  });

  it('verifies every request while the stream is down, and caches again once it reconnects', async () => {
    streamsRefused = true;
    for (const stream of streams) stream.emit('error', { code: status.UNAVAILABLE, details: 'invalidation hub restarting' });
    streams.clear();
    // The gateway has seen the stream end and tried again: refused.
    const refusedBefore = refusals;
    await waitFor(() => refusals > refusedBefore, 'a refused reconnection');
    const before = verifyCalls;
    await get(GOOD);
    await get(GOOD);
    expect(verifyCalls - before).toBe(2);
    streamsRefused = false;
    await cacheEnabled();
    const afterReconnect = verifyCalls;
    for (let i = 0; i < 3; i += 1) await get(GOOD);
    expect(verifyCalls - afterReconnect).toBe(1);
  });
});
