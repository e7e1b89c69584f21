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
import { createServiceClient, createTestDatabase, type TestDatabase } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { findProcess, killLeftovers, launch, portsFrom, ROOT, waitUntilGone, type StackRun } from './stack-process';
import { createTenant, creditsLeft, duplicates, RetryingClient, type Answer, type FeedEvent, type Tenant } from './retrying-client';

jest.setTimeout(600_000);

const ports = portsFrom(19200);
const ROUNDS = Number(process.env.FAULTS_ROUNDS ?? 3);
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

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b'], { cwd: ROOT, stdio: 'inherit' });
  db = await createTestDatabase('pd_faults_once');
});

afterEach(async () => {
  if (run) {
    process.kill(-run.child.pid!, 'SIGTERM');
    const left = await waitUntilGone(run, 25_000);
    if (left.processes.length > 0) await killLeftovers(run);
  }
  run = undefined;
});

afterAll(async () => {
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
  const jitter = () => sleep(Math.random() * 1500);
  const provisions = Array.from({ length: 8 }, async (_, i) => {
    await jitter();
    return api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: `r${round}-provision-${i}`, body: { count: 2 } });
  });
  const claims = Array.from({ length: 16 }, async (_, i) => {
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

describe('exactly-once writes while a process is SIGKILLed', () => {
  test('the accounts service killed during concurrent claims, provisioning, orders and closes', async () => {
    await startStack();
    await publishQuote();
    const tenant: Tenant = await createTenant(`127.0.0.1:${ports.AUTH_GRPC_PORT}`, CREDITS);
    const api = new RetryingClient([gateway()], tenant.token);
    try {
      // Accounts to claim, and six held accounts to trade on.
      const seed = await api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: 'seed', body: { count: 60 } });
      expect(seed.status).toBe(201);
      const tradingAccounts = seed.body.data.slice(0, 6).map((a) => a.number);
      for (const [i, number] of tradingAccounts.entries()) {
        const held = await api.send('PUT', `/v1/accounts/${number}/trader`, { key: `hold-${i}`, body: { name: `Holder ${i}`, email: `holder-${i}@example.com` } });
        expect(held.status).toBe(200);
      }

      const outcomes: RoundOutcome[] = [];
      for (let round = 1; round <= ROUNDS; round += 1) {
        outcomes.push(await writeRound(api, round, tradingAccounts, () => killDuring(/services\/accounts\/dist\/main\.js/, 400 + round * 200)));
        // The quote cache of a restarted service is empty until the next quote.
        await publishQuote();
      }

      const claims = outcomes.flatMap((o) => o.claims);
      const provisions = outcomes.flatMap((o) => o.provisions);
      const orders = outcomes.flatMap((o) => o.orders);
      const closes = outcomes.flatMap((o) => o.closes);

      // Every logical request got a real answer (no 5xx left: the client retried those).
      expect(claims.map((c) => c.status).filter((s) => s !== 200 && s !== 409)).toEqual([]);
      expect(provisions.map((p) => p.status).filter((s) => s !== 201)).toEqual([]);
      expect(orders.map((o) => o.status).filter((s) => s !== 201)).toEqual([]);
      // A retried close answers the first answer: the closed position, never 409 "already closed".
      expect(closes.map((c) => `${c.status} ${c.body.status}`).filter((s) => s !== '200 closed')).toEqual([]);

      const accounts = await api.all<RestAccount>('/v1/accounts');
      const events = await api.all<FeedEvent>('/v1/events');
      const ofType = (type: string) => events.filter((e) => e.type === type);

      // Provisioning: exactly the accounts the answers name, one account.created each, one credit each.
      const provisioned = [...seed.body.data, ...provisions.flatMap((p) => p.body.data)].map((a) => a.number);
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

      // Claims: one account per claim, each held by its claimer alone, one account.assigned per change.
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

      // Orders and closes: one position per order, one position.opened and one position.closed each.
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
        expect(positions.length).toBe(ROUNDS);
      }
      process.stdout.write(
        `accounts killed ${ROUNDS} times: ${claims.length} claims, ${provisions.length} provisionings, ${orders.length} orders, ${closes.length} closes; ` +
          `retried ${api.retried.serverErrors} 5xx and ${api.retried.connectionErrors} connection errors; duplicates found: 0\n`,
      );
    } finally {
      tenant.auth.close();
    }
  });
});
