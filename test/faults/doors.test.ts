/**
 * Issue 35, exactly-once per door: the real processes of `node scripts/start.mjs` (its supervisor
 * restarts a dead child); the gateway, then the owning service (accounts), SIGKILLed while a door's
 * writes are in flight, each write retried by the client with the same Idempotency-Key until it
 * gets an answer that is not "try again". Doors: a REST write (POST /v1/traders), a claim, an
 * order, a payout. For each: one effect per logical request, seen through the API and the event
 * feed, and the same request sent once more answers exactly what the first answer was.
 *
 * Ports 19600-19604 (the stack) are fixed, outside the ephemeral range.
 */
import { execFileSync } from 'node:child_process';
import { createServiceClient } from '@propdesk/kit';
import { createTestDatabase, REPOSITORY_ROOT, type TestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { findProcess, killLeftovers, launch, portsFrom, waitUntilGone, type StackRun } from './stack-process';
import { createTenant, duplicates, RetryingClient, type Answer, type FeedEvent, type Tenant } from './retrying-client';

jest.setTimeout(600_000);

const ports = portsFrom(19600);
/** Logical requests per door and kill: dense, so that some commit and lose their answer to the kill. */
const WRITES = Number(process.env.FAULTS_DOOR_WRITES ?? 16);
const VICTIMS = [
  { name: 'the gateway', pattern: /gateway\/dist\/main\.js/ },
  { name: 'the accounts service', pattern: /services\/accounts\/dist\/main\.js/ },
] as const;

interface RestAccount {
  number: number;
  balance: number;
  trader_id: string | null;
}

let db: TestDatabase;
let run: StackRun | undefined;

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b'], { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
  db = await createTestDatabase('pd_faults_doors');
  run = launch({
    via: 'node',
    ports,
    env: {
      DATABASE_URL: db.url,
      DATABASE_POOL_MAX: '6',
      REDIS_URL: undefined,
      PROPDESK_DATA_DIR: undefined,
      SIMULATE_MARKET: 'false',
      PROVISIONING_RECOVERY_INTERVAL_MS: '1000',
      PROVISIONING_STALE_AFTER_MS: '5000',
      RATE_LIMIT_READ_PER_MIN: '1000000',
      RATE_LIMIT_WRITE_PER_MIN: '1000000',
      RATE_LIMIT_IP_PER_MIN: '1000000',
    },
  });
  await run.ready;
  await publishQuote();
});

afterAll(async () => {
  if (run) {
    process.kill(-run.child.pid!, 'SIGTERM');
    const left = await waitUntilGone(run, 25_000);
    if (left.processes.length > 0) await killLeftovers(run);
  }
  await db?.drop();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A quote for the orders (a restarted accounts service starts with an empty quote cache). */
async function publishQuote(): Promise<void> {
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, `127.0.0.1:${ports.ACCOUNTS_GRPC_PORT}`, 10_000);
  try {
    for (let i = 0; ; i += 1) {
      try {
        await trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1002, time: new Date() } });
        return;
      } catch (err) {
        if (i > 150) throw err;
        await sleep(200);
      }
    }
  } finally {
    trading.close();
  }
}

/** One logical write: what the client sends, with its key, every time. */
interface Write {
  method: 'POST' | 'PUT';
  path: string;
  key: string;
  body?: unknown;
}

/**
 * Sends every write (jittered, concurrently), SIGKILLs the victim while they are in flight, waits
 * until each got a real answer, then sends each once more: the answers must be byte for byte the
 * first ones. Returns the first answers.
 */
async function underKill<T>(api: RetryingClient, writes: Write[], victim: RegExp): Promise<Array<Answer<T>>> {
  const retriedBefore = api.retried.serverErrors + api.retried.connectionErrors;
  const answers = writes.map(async (w) => {
    await sleep(Math.random() * 300);
    return api.send<T>(w.method, w.path, { key: w.key, body: w.body });
  });
  const kill = (async () => {
    await sleep(120);
    process.kill(findProcess(run!, victim).pid, 'SIGKILL');
    // Orders need a quote: a restarted accounts service has none until the next one.
    await sleep(500);
    await publishQuote();
  })();
  const [first] = await Promise.all([Promise.all(answers), kill]);
  // The kill met requests in flight: some were answered only on a retry.
  expect(api.retried.serverErrors + api.retried.connectionErrors).toBeGreaterThan(retriedBefore);
  await publishQuote();
  const again = await Promise.all(writes.map((w) => api.send<T>(w.method, w.path, { key: w.key, body: w.body })));
  expect(again.map((a) => `${a.status} ${a.text}`)).toEqual(first.map((a) => `${a.status} ${a.text}`));
  return first;
}

async function tenantWithAccounts(label: string, count: number, body: Record<string, unknown> = {}): Promise<{ tenant: Tenant; api: RetryingClient; accounts: RestAccount[] }> {
  const tenant = await createTenant(`127.0.0.1:${ports.AUTH_GRPC_PORT}`, 1000);
  const api = new RetryingClient([`http://127.0.0.1:${ports.PORT}`], tenant.token);
  const provisioned = count === 0 ? undefined : await api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: `${label}-seed`, body: { count, ...body } });
  if (provisioned) expect(provisioned.status).toBe(201);
  return { tenant, api, accounts: provisioned?.body.data ?? [] };
}

const eventsOf = async (api: RetryingClient, type: string) => api.all<FeedEvent & { data: { payout_id?: string } }>(`/v1/events?type=${type}`);

describe.each(VICTIMS)('exactly-once per door while $name is SIGKILLed', ({ name, pattern }) => {
  const label = name.replace(/\W+/g, '-');

  test('a REST write: POST /v1/traders makes one trader per request and answers 201 each time', async () => {
    const { tenant, api } = await tenantWithAccounts(`${label}-traders`, 0);
    try {
      const writes: Write[] = Array.from({ length: WRITES }, (_, i) => ({
        method: 'POST',
        path: '/v1/traders',
        key: `${label}-trader-${i}`,
        body: { name: `Trader ${i}`, email: `${label}-trader-${i}@example.com` },
      }));
      const answers = await underKill<{ id: string; email: string }>(api, writes, pattern);
      // A second execution would find the trader and answer 200 (created: false): every answer is the first's 201.
      expect(answers.map((a) => a.status)).toEqual(writes.map(() => 201));
      const traders = await api.all<{ id: string; email: string }>('/v1/traders');
      expect(traders.map((t) => t.id).sort()).toEqual(answers.map((a) => a.body.id).sort());
      expect(duplicates(traders.map((t) => t.email))).toEqual([]);
    } finally {
      tenant.auth.close();
    }
  });

  test('a claim: each request holds one account, one account.assigned each', async () => {
    const { tenant, api, accounts } = await tenantWithAccounts(`${label}-claims`, WRITES * 2);
    try {
      const writes: Write[] = Array.from({ length: WRITES }, (_, i) => ({
        method: 'POST',
        path: '/v1/accounts/claim',
        key: `${label}-claim-${i}`,
        body: { name: `Claimer ${i}`, email: `${label}-claimer-${i}@example.com` },
      }));
      const answers = await underKill<{ account: RestAccount; trader: { id: string } }>(api, writes, pattern);
      expect(answers.map((a) => a.status)).toEqual(writes.map(() => 200));
      const claimed = answers.map((a) => a.body.account.number);
      expect(duplicates(claimed)).toEqual([]);
      const now = await api.all<RestAccount>('/v1/accounts');
      expect(now.length).toBe(accounts.length);
      const held = now.filter((a) => a.trader_id !== null);
      expect(held.map((a) => a.number).sort((a, b) => a - b)).toEqual([...claimed].sort((a, b) => a - b));
      for (const answer of answers) expect(held.find((a) => a.number === answer.body.account.number)?.trader_id).toBe(answer.body.trader.id);
      const assigned = (await eventsOf(api, 'account.assigned')).map((e) => e.data.account);
      expect([...assigned].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([...claimed].sort((a, b) => a - b));
    } finally {
      tenant.auth.close();
    }
  });

  test('an order: one position per request, one position.opened each', async () => {
    const { tenant, api, accounts } = await tenantWithAccounts(`${label}-orders`, WRITES);
    try {
      for (const [i, account] of accounts.entries()) {
        const held = await api.send('PUT', `/v1/accounts/${account.number}/trader`, { key: `${label}-hold-${i}`, body: { name: `Holder ${i}`, email: `${label}-holder-${i}@example.com` } });
        expect(held.status).toBe(200);
      }
      const writes: Write[] = accounts.map((account, i) => ({
        method: 'POST',
        path: `/v1/accounts/${account.number}/positions`,
        key: `${label}-order-${i}`,
        body: { symbol: 'EURUSD', side: i % 2 === 0 ? 'buy' : 'sell', volume: 0.01 },
      }));
      const answers = await underKill<{ id: string; status: string }>(api, writes, pattern);
      expect(answers.map((a) => `${a.status} ${a.body.status}`)).toEqual(writes.map(() => '201 open'));
      const ids = answers.map((a) => a.body.id);
      for (const account of accounts) {
        const open = await api.all<{ id: string }>(`/v1/accounts/${account.number}/positions?status=open`);
        expect(open).toHaveLength(1);
        expect(ids).toContain(open[0]?.id);
      }
      const opened = (await eventsOf(api, 'position.opened')).map((e) => e.data.position_id);
      expect([...opened].sort()).toEqual([...ids].sort());
    } finally {
      tenant.auth.close();
    }
  });

  test('a payout: the balance drops once per request, one payout.created each', async () => {
    const program = `${label}-funded`;
    const { tenant, api } = await tenantWithAccounts(`${label}-payouts`, 0);
    try {
      const created = await api.send('POST', '/v1/programs', {
        key: `${label}-program`,
        body: { name: program, initial_balance: 50000, phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 80 }] },
      });
      expect(created.status).toBe(201);
      const provisioned = await api.send<{ data: RestAccount[] }>('POST', '/v1/accounts', { key: `${label}-funded-seed`, body: { count: WRITES, program } });
      expect(provisioned.status).toBe(201);
      const accounts = provisioned.body.data;
      for (const [i, account] of accounts.entries()) {
        const profit = await api.send('POST', `/v1/accounts/${account.number}/adjustments`, { key: `${label}-profit-${i}`, body: { amount: 1000, reason: 'closed profit' } });
        expect(profit.status).toBe(201);
      }
      const writes: Write[] = accounts.map((account, i) => ({ method: 'POST', path: `/v1/accounts/${account.number}/payouts`, key: `${label}-payout-${i}`, body: { amount: 100 } }));
      const answers = await underKill<{ id: string; status: string; balance_after: number }>(api, writes, pattern);
      expect(answers.map((a) => `${a.status} ${a.body.status} ${a.body.balance_after}`)).toEqual(writes.map(() => '201 approved 50900'));
      for (const account of accounts) {
        const now = await api.get<RestAccount>(`/v1/accounts/${account.number}`);
        expect(now.body.balance).toBe(50900);
        expect(await api.all(`/v1/accounts/${account.number}/payouts`)).toHaveLength(1);
      }
      const paid = (await eventsOf(api, 'payout.created')).map((e) => e.data.payout_id);
      expect([...paid].sort()).toEqual(answers.map((a) => a.body.id).sort());
    } finally {
      tenant.auth.close();
    }
  });
});
