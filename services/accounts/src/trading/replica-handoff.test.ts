import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { createServiceClient, metricValue, QueryTypes, type ServiceClient } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { QUOTES_CHANNEL } from './engine/cluster';
import { Ring } from './engine/ring';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * Two replicas splitting the accounts: this process's (the harness) and one in a child process
 * (services/accounts/dist/main.js, built by `tsc -b`), so it can die for real (SIGKILL: no lease
 * given back). Leases expire after 2 s here, renewed every 500 ms.
 */
const MAIN_JS = path.resolve(__dirname, '../../dist/main.js');
const METRICS_A = 19300;
const METRICS_B = 19301;
const LEASES = { TRADING_LEASE_TTL_MS: '2000', TRADING_LEASE_RENEW_MS: '500' };
/** A notification of the test's own on the quotes channel, sent after A settled. */
const SENTINEL = 'test-sentinel';

let h: Harness;
let child: ChildProcess;
let clientsB: { accounts: ServiceClient<accountsv1.AccountsServiceClient>; trading: ServiceClient<tradingv1.TradingServiceClient> };
let org: string;
/** The membership B last logged ('trading engine membership changed'). */
let membersSeenByB = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnReplica(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; address: string }> {
  const c = spawn(process.execPath, [MAIN_JS], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: c.stdout! });
    const timer = setTimeout(() => reject(new Error('accounts child did not start')), 30_000);
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string; port?: number; members?: number };
        // B's warnings and errors reach the test's output (a failure here is explained by them).
        if ((entry.level ?? 0) >= 40) process.stderr.write(`replica B: ${line}\n`);
        if (entry.msg === 'trading engine membership changed' && entry.members !== undefined) membersSeenByB = entry.members;
        if (entry.msg === 'accounts service listening') {
          clearTimeout(timer);
          resolve({ child: c, address: `127.0.0.1:${entry.port}` });
        }
      } catch {
        /* not a log line */
      }
    });
    c.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`accounts child exited early (${code})`));
    });
  });
}

function livePositions(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(metricValue(body, 'propdesk_trading_live_positions') ?? NaN));
      })
      .on('error', reject);
  });
}

/** Live positions both replicas hold (an earlier test's failure leaves some: each test counts its own). */
async function heldByBoth(): Promise<number> {
  return (await livePositions(METRICS_A)) + (await livePositions(METRICS_B));
}

/** Whether every one of the accounts is breached. */
async function allBreached(numbers: string[]): Promise<boolean> {
  const a = tradingHelpers(h, h.sql);
  const statuses = await Promise.all(numbers.map(async (n) => (await a.account(org, n)).status));
  return statuses.every((s) => s === accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
  return Date.now() - started;
}

async function liveMembers(): Promise<string[]> {
  const rows = await h.sql.query<{ replica_id: string }>('SELECT replica_id FROM engine_leases WHERE expires_at > now() ORDER BY replica_id', { type: QueryTypes.SELECT });
  return rows.map((r) => r.replica_id);
}

function streamToA(quote: { symbol: string; bid: number; ask: number }): Promise<tradingv1.StreamQuotesResponse> {
  return new Promise((resolve, reject) => {
    const stream = h.tradingClient.raw.streamQuotes((err, res) => (err ? reject(err) : resolve(res)));
    stream.write({ quote });
    stream.end();
  });
}

beforeAll(async () => {
  h = await startHarness({ ...LEASES, ACCOUNTS_METRICS_PORT: String(METRICS_A) });
  const b = await spawnReplica({ ...h.env, ...LEASES, ACCOUNTS_GRPC_PORT: '0', ACCOUNTS_METRICS_PORT: String(METRICS_B) });
  child = b.child;
  clientsB = {
    accounts: createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, b.address, 15_000),
    trading: createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, b.address, 15_000),
  };
  org = h.newOrg(1000);
  // Each engine joins on its first trading call.
  await tradingHelpers(h, h.sql).quote('EURUSD', 1.1, 1.1);
  await tradingHelpers({ api: clientsB.accounts.call, trading: clientsB.trading.call }, h.sql).quote('GBPUSD', 1.27, 1.27);
  await until('two live leases', async () => (await liveMembers()).length === 2, 10_000);
  // Both have read the membership of two (one renewal later).
  await until('both replicas see two', async () => h.service.engine.replicaCount() === 2 && membersSeenByB === 2, 5000);
}, 60_000);

afterAll(async () => {
  clientsB?.accounts.close();
  clientsB?.trading.close();
  if (child && child.exitCode === null && child.signalCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
  await h?.close();
});

it('each replica indexes its own accounts only; a quote fed to one breaches the accounts of both, once each', async () => {
  const a = tradingHelpers(h, h.sql);
  const viaB = tradingHelpers({ api: clientsB.accounts.call, trading: clientsB.trading.call }, h.sql);
  const numbers = await a.newAccounts(org, 10);
  for (const [i, n] of numbers.entries()) await (i % 2 === 0 ? a : viaB).order(org, n, { symbol: 'GBPUSD', volume: 10 });
  const ring = new Ring(await liveMembers());
  const owners = new Set(numbers.map((n) => ring.ownerOf(Number(n))));
  expect(owners.size).toBe(2);
  // Positions opened on the other replica reach their owner by its next tick.
  await until('each replica holds its share', async () => (await heldByBoth()) === numbers.length, 10_000);
  expect(await livePositions(METRICS_A)).toBeGreaterThan(0);
  expect(await livePositions(METRICS_B)).toBeGreaterThan(0);

  // Only A is fed; B's accounts are breached by B, through the fan-out.
  expect(await streamToA({ symbol: 'GBPUSD', bid: 1.2649, ask: 1.265 })).toMatchObject({ accepted: '1', rejected: '0' });
  await until('every account breached', () => allBreached(numbers), 10_000);
  for (const n of numbers) {
    expect(await a.events(n, 'account.breached')).toHaveLength(1);
    expect(await a.events(n, 'position.closed')).toHaveLength(1);
  }
});

it("a quote a replica never received (its fan-out lost) is evaluated from the stored quotes by the replica's next tick", async () => {
  const a = tradingHelpers(h, h.sql);
  const viaB = tradingHelpers({ api: clientsB.accounts.call, trading: clientsB.trading.call }, h.sql);
  await a.quote('AUDUSD', 0.66, 0.66);
  const numbers = await a.newAccounts(org, 10);
  const before = await heldByBoth();
  for (const [i, n] of numbers.entries()) await (i % 2 === 0 ? a : viaB).order(org, n, { symbol: 'AUDUSD', volume: 10 });
  await until('each replica holds its share', async () => (await heldByBoth()) === before + numbers.length, 10_000);
  expect(await livePositions(METRICS_B)).toBeGreaterThan(0);

  // Stored as a replica stores a quote it received, with no NOTIFY: neither replica was told of it.
  await h.sql.query(
    `INSERT INTO quotes_latest (symbol, bid, ask, time) VALUES ('AUDUSD', 0.6549, 0.655, now())
       ON CONFLICT (symbol) DO UPDATE SET bid = EXCLUDED.bid, ask = EXCLUDED.ask, time = EXCLUDED.time`,
  );
  await until('every account breached', () => allBreached(numbers), 10_000);
  for (const n of numbers) {
    expect(await a.events(n, 'account.breached')).toHaveLength(1);
    // 10 lots, 0.0051 below the 0.66 entry: -5,100.
    expect(await a.account(org, n)).toMatchObject({ balance: 94_900 });
  }
});

it("a replica's death hands its accounts to the other within a few seconds, and no breach is missed or doubled", async () => {
  const a = tradingHelpers(h, h.sql);
  const viaB = tradingHelpers({ api: clientsB.accounts.call, trading: clientsB.trading.call }, h.sql);
  const numbers = await a.newAccounts(org, 12);
  const before = await heldByBoth();
  for (const [i, n] of numbers.entries()) await (i % 2 === 0 ? a : viaB).order(org, n, { symbol: 'EURUSD', volume: 10 });
  await until('each replica holds its share', async () => (await heldByBoth()) === before + numbers.length, 10_000);
  const heldByB = await livePositions(METRICS_B);
  expect(heldByB).toBeGreaterThan(0);
  expect(heldByB).toBeLessThan(numbers.length);

  // B dies without giving its lease back; the breaching quote reaches A while B's accounts have no live owner.
  const killed = Date.now();
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  expect(await streamToA({ symbol: 'EURUSD', bid: 1.0949, ask: 1.095 })).toMatchObject({ accepted: '1', rejected: '0' });
  await until('every account breached', () => allBreached(numbers), 8000);
  const handedOverMs = Date.now() - killed;
  // Lease expiry (2 s) plus a renewal (0.5 s) plus loading and evaluating the accounts.
  expect(handedOverMs).toBeLessThan(5000);
  expect(await liveMembers()).toHaveLength(1);
  for (const n of numbers) {
    expect(await a.events(n, 'account.breached')).toHaveLength(1);
    expect(await a.events(n, 'position.closed')).toHaveLength(1);
    // 10 lots, 0.0051 below the 1.1 entry: -5,100.
    expect(await a.account(org, n)).toMatchObject({ status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, balance: 94_900 });
  }
});

it('alone again, the replica fans no quote out: no NOTIFY per quote while no other replica listens', async () => {
  expect(await liveMembers()).toHaveLength(1);
  const listener = new Client({ connectionString: h.db.url });
  await listener.connect();
  try {
    const heard: string[] = [];
    let sentinelHeard = false;
    listener.on('notification', (n) => {
      if (n.payload === SENTINEL) sentinelHeard = true;
      else heard.push(n.payload ?? '');
    });
    await listener.query(`LISTEN ${QUOTES_CHANNEL}`);
    for (let i = 0; i < 5; i++) expect(await streamToA({ symbol: 'GBPUSD', bid: 1.27 + i / 10_000, ask: 1.2701 + i / 10_000 })).toMatchObject({ accepted: '1', rejected: '0' });
    // Whatever A fanned out was sent before it settled; a notification sent after that arrives
    // after any of A's (PostgreSQL delivers them in commit order).
    await h.service.engine.settled();
    await h.sql.query(`SELECT pg_notify('${QUOTES_CHANNEL}', :sentinel)`, { replacements: { sentinel: SENTINEL } });
    await until('the sentinel notification arrives', async () => sentinelHeard, 5000);
    expect(heard).toEqual([]);
    // The quotes were taken all the same (stored by A's next tick): the last one is the symbol's price.
    await h.service.engine.caughtUp();
    const [row] = await h.sql.query<{ bid: string }>("SELECT bid FROM quotes_latest WHERE symbol = 'GBPUSD'", { type: QueryTypes.SELECT });
    expect(Number(row.bid)).toBeCloseTo(1.2704, 6);
  } finally {
    await listener.end();
  }
});
