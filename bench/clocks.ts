/**
 * Test clocks (SPEC 13), two figures:
 *  1. advance: a clock holding BENCH_CLOCK_ACCOUNTS accounts (default 1,000), each with an open
 *     position, advanced by BENCH_CLOCK_DAYS days (default 30): seconds from the advance request to
 *     test_clock.ready (target <= 30 s). The accounts service runs in a process of its own against
 *     a fresh database; the clock and its accounts are made through its gRPC API, their positions
 *     seeded by SQL at the clock's time.
 *  2. firm: the live engine does not pay for clocks. The firm-scale run (trading/firm-scale.ts: its
 *     capacity without collapse and breach latency) without any clock, then with BENCH_CLOCKS clocks
 *     (default 100) of BENCH_CLOCK_SIZE test accounts (default 10) holding open positions in the
 *     same symbols, side by side (target: capacity and breach p99 within 10%). The firm run's own
 *     variables (BENCH_FIRM_*) size both runs.
 * BENCH_CLOCK_SCENARIOS picks them (default "advance,firm").
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createServiceClient, Mode } from '@propdesk/kit';
import { createTestDatabase } from '@propdesk/kit/testing';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { startService } from './support/accounts-service';
import { runFirmScale, type FirmScaleResult } from './trading/firm-scale';
import { SYMBOLS } from './trading/seed';

const ACCOUNTS = Number(process.env.BENCH_CLOCK_ACCOUNTS ?? 1000);
const DAYS = Number(process.env.BENCH_CLOCK_DAYS ?? 30);
const CLOCKS = Number(process.env.BENCH_CLOCKS ?? 100);
const CLOCK_SIZE = Number(process.env.BENCH_CLOCK_SIZE ?? 10);
/** A Monday morning: the walk crosses four weekends and thirty day starts. */
const START = new Date('2025-01-06T09:00:00.000Z');

export async function run(): Promise<void> {
  const scenarios = (process.env.BENCH_CLOCK_SCENARIOS ?? 'advance,firm').split(',');
  if (scenarios.includes('advance')) await runAdvance();
  if (scenarios.includes('firm')) await runBesideTheFirm();
}

async function runAdvance(): Promise<void> {
  const db = await createTestDatabase('pd_bench_clock');
  const service = await startService({ DATABASE_URL: db.url });
  const accounts = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, service.address, 60_000);
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 60_000);
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  try {
    const scope = { organizationId: randomUUID(), mode: Mode.MODE_TEST };
    for (const s of SYMBOLS) await trading.call.publishQuote({ quote: { symbol: s.symbol, bid: s.mid, ask: s.mid } });
    const { testClock } = await accounts.call.createTestClock({ ...scope, name: 'bench', frozenTime: START });
    const clockId = testClock!.id;
    let t = Date.now();
    for (let made = 0; made < ACCOUNTS; made += 100) {
      await accounts.call.createAccounts({ ...scope, count: Math.min(100, ACCOUNTS - made), program: '', initialBalance: 0, testClockId: clockId });
    }
    // One 0.01-lot position per account, opened at the clock's time at its price (a few dollars either way: nothing breaches).
    await pg.query(
      `WITH a AS (SELECT number, organization_id, row_number() OVER (ORDER BY number) - 1 AS k FROM accounts.accounts WHERE test_clock_id = $1)
       INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
       SELECT a.number, a.organization_id, 'open', ($2::text[])[1 + (a.k % 10)], CASE WHEN a.k % 2 = 0 THEN 'buy' ELSE 'sell' END, 0.01, 'market',
              ($3::numeric[])[1 + (a.k % 10)], $4::timestamptz, CAST($4::timestamptz AS date), $4::timestamptz, now()
         FROM a`,
      [clockId, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid), START],
    );
    await pg.query('ANALYZE accounts.positions; ANALYZE accounts.accounts');
    console.log(`advance: ${ACCOUNTS} accounts on a clock, each with an open position (${Date.now() - t} ms)`);

    const target = new Date(START.getTime() + DAYS * 86_400_000);
    const cpu0 = service.cpuSeconds();
    t = Date.now();
    await accounts.call.advanceTestClock({ ...scope, id: clockId, frozenTime: target });
    const requested = Date.now() - t;
    for (;;) {
      const { rows } = await pg.query(`SELECT 1 FROM accounts.events WHERE type = 'test_clock.ready' AND data->>'id' = $1`, [clockId]);
      if (rows.length > 0) break;
      if (Date.now() - t > 600_000) throw new Error('the clock was not ready within 10 minutes');
      await sleep(50);
    }
    const seconds = (Date.now() - t) / 1000;
    const cpu = service.cpuSeconds() - cpu0;
    const counts = await pg.query<{ days: string; flags: string; events: string }>(
      `SELECT (SELECT count(*) FROM accounts.account_days d JOIN accounts.accounts a ON a.number = d.account_number WHERE a.test_clock_id = $1) AS days,
              (SELECT count(*) FROM accounts.flags f JOIN accounts.accounts a ON a.number = f.account_number WHERE a.test_clock_id = $1) AS flags,
              (SELECT count(*) FROM accounts.events WHERE livemode = false AND created_at > $2) AS events`,
      [clockId, START],
    );
    const c = counts.rows[0];
    console.log(
      `advance: ${ACCOUNTS} accounts with open positions by ${DAYS} days: test_clock.ready after ${seconds.toFixed(1)} s ` +
        `(the request answered in ${requested} ms; service CPU ${cpu.toFixed(1)} s; ${c.days} day starts, ${c.flags} weekend flags, ${c.events} events written) (target <= 30 s)`,
    );
  } catch (err) {
    console.log(service.output().slice(-5000));
    throw err;
  } finally {
    await pg.end();
    accounts.close();
    trading.close();
    await service.stop();
    await db.drop();
  }
}

async function runBesideTheFirm(): Promise<void> {
  console.log('-- the firm-scale run without any test clock');
  const without = await runFirmScale();
  console.log(`-- the same run with ${CLOCKS} test clocks of ${CLOCK_SIZE} accounts each`);
  const withClocks = await runFirmScale({ clocks: { count: CLOCKS, accounts: CLOCK_SIZE } });
  const ratio = (a: number, b: number) => (b > 0 ? `${((a / b) * 100).toFixed(0)}%` : 'n/a');
  const p99 = (r: FirmScaleResult) => r.breachP99.map((b) => `${b.ms.toFixed(1)} ms at ${b.loadRate}/s`).join(', ');
  console.log(
    `live engine beside ${CLOCKS} clocks of ${CLOCK_SIZE}: capacity ${withClocks.capacity} quotes/s against ${without.capacity} without (${ratio(withClocks.capacity, without.capacity)}); ` +
      `breach p99 ${p99(withClocks)} against ${p99(without)} (${withClocks.breachP99.map((b, i) => ratio(b.ms, without.breachP99[i]?.ms ?? NaN)).join(', ')}) (target: within 10%)`,
  );
}
