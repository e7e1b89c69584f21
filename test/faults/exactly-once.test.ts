/**
 * Issue 12, crash tests: real processes of `npm start` (node scripts/start.mjs, whose supervisor
 * restarts a dead child), one SIGKILLed in the middle of writes whose clients retry with the same
 * Idempotency-Key on 5xx and connection errors. Every logical request must have exactly one effect,
 * seen through the API and the event feed: no account with two holders, credits spent equal
 * accounts provisioned, exactly one event per change, a retried close answers the first answer.
 *
 * Ports 19200-19204 (the stack) are fixed, outside the ephemeral range.
 */
import { execFileSync } from 'node:child_process';
import { createServiceClient } from '@propdesk/kit';
import { createTestDatabase, generateCertificate, REPOSITORY_ROOT, type HttpsReceiver, startHttpsReceiver, type TestCertificate, type TestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { verifyWebhook } from '../../services/webhooks/src/verify';
import { findProcess, killLeftovers, launch, portsFrom, waitUntilGone, type StackRun } from './stack-process';
import { createTenant, creditsLeft, duplicates, RetryingClient, type Answer, type FeedEvent, type Tenant } from './retrying-client';

jest.setTimeout(600_000);

const ports = portsFrom(19200);
const ROUNDS = Number(process.env.FAULTS_ROUNDS ?? 4);
const CREDITS = 1000;

interface RestAccount {
  number: number;
  trader_id: string | null;
}
interface RestPosition {
  id: string;
  status: string;
}

let db: TestDatabase;
let run: StackRun | undefined;
let cert: TestCertificate;
let receiver: HttpsReceiver;

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b'], { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
  db = await createTestDatabase('pd_faults_once');
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  await startStack();
  await publishQuote();
});

afterAll(async () => {
  if (run) {
    process.kill(-run.child.pid!, 'SIGTERM');
    const left = await waitUntilGone(run, 25_000);
    if (left.processes.length > 0) await killLeftovers(run);
  }
  await receiver?.close();
  cert?.remove();
  await db?.drop();
});

async function startStack(): Promise<StackRun> {
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
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      PROVISIONING_RECOVERY_INTERVAL_MS: '1000',
      PROVISIONING_STALE_AFTER_MS: '5000',
      // The retries of a crash are many requests in little time: the limits are not what is tested.
      RATE_LIMIT_READ_PER_MIN: '1000000',
      RATE_LIMIT_WRITE_PER_MIN: '1000000',
      RATE_LIMIT_IP_PER_MIN: '1000000',
    },
  });
  await run.ready;
  return run;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const gateway = () => `http://127.0.0.1:${ports.PORT}`;

async function publishQuote(): Promise<void> {
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, `127.0.0.1:${ports.ACCOUNTS_GRPC_PORT}`, 10_000);
  try {
    for (let i = 0; ; i += 1) {
      try {
        await trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1002, time: new Date() } });
        return;
      } catch (err) {
        if (i > 100) throw err;
        await sleep(200);
      }
    }
  } finally {
    trading.close();
  }
}

/** Kills one process of the stack (the supervisor restarts it) after `afterMs`, then once more when it is back. */
async function killDuring(pattern: RegExp, afterMs: number): Promise<number> {
  await sleep(afterMs);
  const victim = findProcess(run!, pattern);
  process.kill(victim.pid, 'SIGKILL');
  return victim.pid;
}

interface RoundOutcome {
  claims: Array<Answer<{ account: RestAccount; trader: { id: string } }>>;
  provisions: Array<Answer<{ data: RestAccount[] }>>;
  orders: Array<Answer<RestPosition>>;
  closes: Array<Answer<RestPosition>>;
}

/**
 * One round of concurrent logical writes, each with its own Idempotency-Key: provisioning, claims,
 * and on the trading accounts an order then its close; `fault` runs meanwhile.
 */
async function writeRound(api: RetryingClient, round: number, tradingAccounts: number[], fault: () => Promise<unknown>): Promise<RoundOutcome> {
  // Dense: many writes between their commit and their answer when the kill lands.
  const jitter = () => sleep(Math.random() * 400);
  const provisions = Array.from({ length: 12 }, async (_, i) => {
    await jitter();
    return api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: `r${round}-provision-${i}`, body: { count: 2 } });
  });
  const claims = Array.from({ length: 24 }, async (_, i) => {
    await jitter();
    return api.send<{ account: RestAccount; trader: { id: string } }>('POST', '/v1/accounts/claim', {
      key: `r${round}-claim-${i}`,
      body: { name: `Trader ${round}-${i}`, email: `trader-${round}-${i}@example.com` },
    });
  });
  const trades = tradingAccounts.map(async (number, i) => {
    await jitter();
    const order = await api.send<RestPosition>('POST', `/v1/accounts/${number}/positions`, {
      key: `r${round}-order-${i}`,
      body: { symbol: 'EURUSD', side: i % 2 === 0 ? 'buy' : 'sell', volume: 0.01 },
    });
    if (order.status !== 201) return { order, close: undefined };
    await jitter();
    const close = await api.send<RestPosition>('POST', `/v1/accounts/${number}/positions/${order.body.id}/close`, { key: `r${round}-close-${i}` });
    return { order, close };
  });
  const [p, c, t] = await Promise.all([Promise.all(provisions), Promise.all(claims), Promise.all(trades), fault()]);
  return { provisions: p, claims: c, orders: t.map((x) => x.order), closes: t.flatMap((x) => (x.close ? [x.close] : [])) };
}

/** A tenant with 60 accounts, six of them held (to trade on). */
async function seededTenant(label: string): Promise<{ tenant: Tenant; api: RetryingClient; seed: RestAccount[]; tradingAccounts: number[] }> {
  const tenant = await createTenant(`127.0.0.1:${ports.AUTH_GRPC_PORT}`, CREDITS);
  const api = new RetryingClient([gateway()], tenant.token);
  const seed = await api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: `${label}-seed`, body: { count: 60 } });
  expect(seed.status).toBe(201);
  const tradingAccounts = seed.body.data.slice(0, 6).map((a) => a.number);
  for (const [i, number] of tradingAccounts.entries()) {
    const held = await api.send('PUT', `/v1/accounts/${number}/trader`, { key: `${label}-hold-${i}`, body: { name: `Holder ${i}`, email: `holder-${i}@example.com` } });
    expect(held.status).toBe(200);
  }
  return { tenant, api, seed: seed.body.data, tradingAccounts };
}

/**
 * Exactly one effect per logical request, through the API and the event feed: the accounts the
 * provisioning answers name and no others, one credit each, one holder per account, one
 * account.created / account.assigned / position.opened / position.closed per change.
 */
async function expectExactlyOnce(api: RetryingClient, tenant: Tenant, seed: RestAccount[], tradingAccounts: number[], outcomes: RoundOutcome[]): Promise<void> {
  const claims = outcomes.flatMap((o) => o.claims);
  const provisions = outcomes.flatMap((o) => o.provisions);
  const orders = outcomes.flatMap((o) => o.orders);
  const closes = outcomes.flatMap((o) => o.closes);

  // Every logical request got a real answer (the client retried every 5xx).
  expect(claims.map((c) => c.status).filter((s) => s !== 200 && s !== 409)).toEqual([]);
  expect(provisions.map((p) => p.status).filter((s) => s !== 201)).toEqual([]);
  expect(orders.map((o) => o.status).filter((s) => s !== 201)).toEqual([]);
  // A retried close answers the first answer: the closed position, never 409 "already closed".
  expect(closes.map((c) => `${c.status} ${c.body.status}`).filter((s) => s !== '200 closed')).toEqual([]);

  const accounts = await api.all<RestAccount>('/v1/accounts');
  const events = await api.all<FeedEvent>('/v1/events');
  const ofType = (type: string) => events.filter((e) => e.type === type);

  const provisioned = [...seed, ...provisions.flatMap((p) => p.body.data)].map((a) => a.number);
  expect(duplicates(provisioned)).toEqual([]);
  expect(accounts.map((a) => a.number).sort((a, b) => a - b)).toEqual([...provisioned].sort((a, b) => a - b));
  const created = ofType('account.created').map((e) => e.data.account);
  expect(duplicates(created)).toEqual([]);
  expect(created.length).toBe(provisioned.length);
  // Reservations of killed attempts are cancelled by the recovery loop: wait for it.
  let left = await creditsLeft(tenant);
  for (let i = 0; i < 60 && left !== CREDITS - provisioned.length; i += 1) {
    await sleep(1000);
    left = await creditsLeft(tenant);
  }
  expect(left).toBe(CREDITS - provisioned.length);

  const claimed = claims.filter((c) => c.status === 200);
  const claimedNumbers = claimed.map((c) => c.body.account.number);
  expect(duplicates(claimedNumbers)).toEqual([]);
  const byNumber = new Map(accounts.map((a) => [a.number, a]));
  for (const c of claimed) expect(byNumber.get(c.body.account.number)?.trader_id).toBe(c.body.trader.id);
  const held = accounts.filter((a) => a.trader_id !== null).map((a) => a.number).sort((a, b) => a - b);
  expect(held).toEqual([...tradingAccounts, ...claimedNumbers].sort((a, b) => a - b));
  const assigned = ofType('account.assigned').map((e) => e.data.account);
  expect(duplicates(assigned)).toEqual([]);
  expect(assigned.length).toBe(held.length);

  const positionIds = orders.map((o) => o.body.id);
  expect(duplicates(positionIds)).toEqual([]);
  const opened = ofType('position.opened').map((e) => e.data.position_id);
  const closedEvents = ofType('position.closed').map((e) => e.data.position_id);
  expect(duplicates(opened)).toEqual([]);
  expect(duplicates(closedEvents)).toEqual([]);
  expect([...opened].sort()).toEqual([...positionIds].sort());
  expect([...closedEvents].sort()).toEqual([...positionIds].sort());
  for (const number of tradingAccounts) {
    const positions = await api.all<RestPosition>(`/v1/accounts/${number}/positions?status=closed`);
    expect(positions.length).toBe(outcomes.length);
  }
}

/** The kit's exactly-once helper logs these when a write is wired wrongly: none may appear. */
function expectNoWiringMistakes(): void {
  const log = run?.stderr() ?? '';
  expect(log).toContain('accounts service listening'); // the services' logs are there to read
  expect(log).not.toContain('differs from the one its effect transaction recorded');
  expect(log).not.toContain('idempotent write without an effect transaction');
}

function report(what: string, api: RetryingClient, outcomes: RoundOutcome[]): void {
  const n = (pick: (o: RoundOutcome) => unknown[]) => outcomes.flatMap(pick).length;
  process.stdout.write(
    `${what} killed ${outcomes.length} times: ${n((o) => o.claims)} claims, ${n((o) => o.provisions)} provisionings, ${n((o) => o.orders)} orders, ${n((o) => o.closes)} closes; ` +
      `retried ${api.retried.serverErrors} 5xx/429 and ${api.retried.connectionErrors} connection errors; duplicates found: 0\n`,
  );
}

describe('exactly-once writes while a process is SIGKILLed', () => {
  test('the accounts service killed during concurrent claims, provisioning, orders and closes', async () => {
    const { tenant, api, seed, tradingAccounts } = await seededTenant('accounts-kill');
    try {
      const outcomes: RoundOutcome[] = [];
      for (let round = 1; round <= ROUNDS; round += 1) {
        outcomes.push(await writeRound(api, round, tradingAccounts, () => killDuring(/services\/accounts\/dist\/main\.js/, 150 + round * 60)));
        // The quote cache of a restarted service is empty until the next quote.
        await publishQuote();
      }
      await expectExactlyOnce(api, tenant, seed, tradingAccounts, outcomes);
      expectNoWiringMistakes();
      report('accounts service', api, outcomes);
    } finally {
      tenant.auth.close();
    }
  });

  test('the gateway killed during writes retried by the client', async () => {
    const { tenant, api, seed, tradingAccounts } = await seededTenant('gateway-kill');
    try {
      const outcomes: RoundOutcome[] = [];
      for (let round = 1; round <= ROUNDS; round += 1) {
        outcomes.push(await writeRound(api, round, tradingAccounts, () => killDuring(/gateway\/dist\/main\.js/, 150 + round * 60)));
      }
      await expectExactlyOnce(api, tenant, seed, tradingAccounts, outcomes);
      expect(api.retried.connectionErrors).toBeGreaterThan(0);
      expectNoWiringMistakes();
      report('gateway', api, outcomes);
    } finally {
      tenant.auth.close();
    }
  });

  test('the webhooks service killed mid-delivery: every event arrives, retried writes make one endpoint each', async () => {
    const tenant = await createTenant(`127.0.0.1:${ports.AUTH_GRPC_PORT}`, CREDITS);
    const api = new RetryingClient([gateway()], tenant.token);
    try {
      const path = `/hooks-${tenant.orgId}`;
      const main = await api.send<{ id: string; secret: string }>('POST', '/v1/webhooks', { key: 'main-endpoint', body: { url: receiver.url(path), events: ['account.created'] } });
      expect(main.status).toBe(201);
      const provisioned = await api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: 'events', body: { count: 100 } });
      expect(provisioned.status).toBe(201);

      // Writes to the webhooks service while it is killed twice.
      const jitter = () => sleep(Math.random() * 1500);
      const creates = Array.from({ length: 4 }, async (_, i) => {
        await jitter();
        return api.send<{ id: string }>('POST', '/v1/webhooks', { key: `extra-${i}`, body: { url: receiver.url(`${path}/extra-${i}`), events: ['account.passed'] } });
      });
      const tests = Array.from({ length: 6 }, async (_, i) => {
        await jitter();
        return api.send<{ delivery_id: string; event_id: string }>('POST', `/v1/webhooks/${main.body.id}/test`, { key: `test-${i}` });
      });
      const rotation = (async () => {
        await jitter();
        return api.send<{ id: string; secret: string }>('POST', `/v1/webhooks/${main.body.id}/rotate-secret`, { key: 'rotate', body: { previous_expires_in: 0 } });
      })();
      const kills = (async () => {
        await killDuring(/services\/webhooks\/dist\/main\.js/, 300);
        await sleep(2500);
        await killDuring(/services\/webhooks\/dist\/main\.js/, 0);
      })();
      const [created, tested, rotated] = await Promise.all([Promise.all(creates), Promise.all(tests), rotation, kills]);

      // One endpoint per create request.
      expect(created.map((c) => c.status)).toEqual([201, 201, 201, 201]);
      const endpoints = await api.all<{ id: string }>('/v1/webhooks');
      expect(endpoints.map((e) => e.id).sort()).toEqual([main.body.id, ...created.map((c) => c.body.id)].sort());
      // One test event per request, each delivered (at least once, always with its own id).
      expect(tested.map((t) => t.status)).toEqual([202, 202, 202, 202, 202, 202]);
      const testEventIds = tested.map((t) => t.body.event_id);
      expect(duplicates(testEventIds)).toEqual([]);
      const deliveries = await api.all<{ event_id: string }>(`/v1/webhooks/${main.body.id}/deliveries`);
      const testDeliveries = deliveries.filter((d) => testEventIds.includes(d.event_id));
      expect(testDeliveries.length).toBe(testEventIds.length);

      // Every account.created event of the feed arrives, under its own id, signed.
      const feed = (await api.all<FeedEvent>('/v1/events?type=account.created')).map((e) => e.id);
      expect(feed.length).toBe(100);
      const wanted = new Set([...feed, ...testEventIds]);
      const arrived = () => new Set(receiver.received(path).map((r) => (JSON.parse(r.body) as { id: string }).id));
      for (let i = 0; i < 120 && [...wanted].some((id) => !arrived().has(id)); i += 1) await sleep(500);
      expect([...wanted].filter((id) => !arrived().has(id))).toEqual([]);
      for (const r of receiver.received(path)) expect(r.headers['x-service-id']).toBe((JSON.parse(r.body) as { id: string }).id);

      // The rotation ran once: what it answered is the secret that signs from then on.
      expect(rotated.status).toBe(200);
      const after = await api.send<{ event_id: string }>('POST', `/v1/webhooks/${main.body.id}/test`, { key: 'after-rotation' });
      const [last] = await receiver.waitFor(1, path, 30_000).then(async () => {
        for (let i = 0; i < 60; i += 1) {
          const hit = receiver.received(path).filter((r) => (JSON.parse(r.body) as { id: string }).id === after.body.event_id);
          if (hit.length > 0) return hit;
          await sleep(500);
        }
        return [];
      });
      expect(last).toBeDefined();
      expect(verifyWebhook({ rawBody: last!.body, headers: last!.headers, secret: rotated.body.secret }).ok).toBe(true);
      expectNoWiringMistakes();
      process.stdout.write(`webhooks service killed twice: ${feed.length} events and ${testEventIds.length} test events delivered at least once; ${created.length} endpoints for ${created.length} create requests; duplicates found: 0\n`);
    } finally {
      tenant.auth.close();
    }
  });
});
