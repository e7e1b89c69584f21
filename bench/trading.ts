/**
 * Issue 5's benchmark, against a fresh database and the accounts service started in this
 * process (from its compiled dist; no simulated feed runs there):
 *  1. quotes per second the engine absorbs with 10,000 open positions over 10 symbols
 *     (a) fully evaluated one after another (each quote marks its ~1,000 positions and accounts),
 *     (b) pushed as fast as possible through the StreamQuotes gRPC feed (every quote evaluated
 *         on its own; the stream is paused while the engine's backlog is high);
 *  2. p99 time from a breaching quote (PublishQuote) to the committed breach, on top of that load;
 *  3. time to build the report of an account with 100,000 deals (its summaries rebuilt from the
 *     seeded deals first, since the seed bypasses the closes that keep them).
 * One process hosts both the service and the load, on a 2-core machine shared with PostgreSQL.
 * Then issue 16's firm-scale scenario (trading/firm-scale.ts: 100,000 positions, capacity without
 * collapse, breach latency at that load, the marking ceiling, memory) and its two-replica run
 * (trading/firm-replicas.ts). BENCH_TRADING_SCENARIOS picks them (default "classic,firm,replicas").
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { createServiceClient, Mode, openDatabase, type Sequelize } from '@propdesk/kit';
import { createTestDatabase } from '@propdesk/kit/testing';
import { tradingv1 } from '@propdesk/proto';
import { ROOT } from './support/stack';
import { runFirmReplicas } from './trading/firm-replicas';
import { runFirmScale } from './trading/firm-scale';
import { BREACH_BASE, seedBreachAccounts, seedDealHistory, seedOpenPositions, SYMBOLS } from './trading/seed';

const OPEN_POSITIONS = Number(process.env.BENCH_TRADING_POSITIONS ?? 10_000);
const SEQUENTIAL_QUOTES = Number(process.env.BENCH_TRADING_QUOTES ?? 1_000);
const STREAMED_QUOTES = Number(process.env.BENCH_TRADING_STREAMED ?? 20_000);
const BREACHES = Number(process.env.BENCH_TRADING_BREACHES ?? 200);
const REPORT_DEALS = Number(process.env.BENCH_TRADING_DEALS ?? 100_000);

interface StartedService {
  address: string;
  stop(): Promise<void>;
}

type Unary<Req, Res> = (req: Req, cb: (err: Error | null, res: Res) => void) => void;

function call<Req, Res>(fn: Unary<Req, Res>, client: object, req: Req): Promise<Res> {
  return new Promise((resolve, reject) => fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

export async function run(): Promise<void> {
  const scenarios = (process.env.BENCH_TRADING_SCENARIOS ?? 'classic,firm,replicas').split(',');
  if (scenarios.includes('classic')) await runClassic();
  const oneReplica = scenarios.includes('firm') ? (await runFirmScale()).capacity : Number(process.env.BENCH_FIRM_ONE_REPLICA ?? 0) || undefined;
  if (scenarios.includes('replicas')) await runFirmReplicas(oneReplica);
}

async function runClassic(): Promise<void> {
  const db = await createTestDatabase('pd_bench_trading');
  // The service's compiled entry: bench/ is built separately and never type-links service code.
  const main = require(path.join(ROOT, 'services/accounts/dist/main.js')) as { start(env: NodeJS.ProcessEnv): Promise<StartedService> };
  const service = await main.start({
    DATABASE_URL: db.url,
    ACCOUNTS_GRPC_PORT: '0',
    AUTH_GRPC_ADDRESS: '127.0.0.1:1',
    CURSOR_SECRET: randomBytes(16).toString('hex'),
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
  });
  const client = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, service.address, 30_000);
  const raw = client.raw;
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  try {
    const org = randomUUID();
    let started = Date.now();
    await seedOpenPositions(pg, org, OPEN_POSITIONS);
    const breachAccounts = await seedBreachAccounts(pg, org, BREACHES);
    console.log(`seeded ${OPEN_POSITIONS} open positions over ${SYMBOLS.length} symbols + ${BREACHES} breach candidates (${Date.now() - started} ms)`);

    // The first quotes load the engine's index (every live position) and price every symbol.
    started = Date.now();
    const publish = (symbol: string, bid: number, ask: number) =>
      call(raw.publishQuote as unknown as Unary<tradingv1.PublishQuoteRequest, tradingv1.PublishQuoteResponse>, raw, { quote: { symbol, bid, ask } });
    const inDigits = (price: number, digits: number) => Number(price.toFixed(digits));
    for (const s of SYMBOLS) await publish(s.symbol, inDigits(s.mid, s.digits), inDigits(s.mid + s.spread, s.digits));
    console.log(`index loaded and all symbols priced in ${Date.now() - started} ms`);

    // 1a. Fully evaluated quotes, one after another, through the unary RPC (includes its quote upsert and equity flush).
    const mids = SYMBOLS.map((s) => s.mid);
    const nextQuote = (i: number) => {
      const k = i % SYMBOLS.length;
      const s = SYMBOLS[k];
      mids[k] = Math.max(s.mid * 0.99, Math.min(s.mid * 1.01, mids[k] + (Math.random() - 0.5) * 2 * s.step));
      return { symbol: s.symbol, bid: inDigits(mids[k], s.digits), ask: inDigits(mids[k] + s.spread, s.digits) };
    };
    started = Date.now();
    for (let i = 0; i < SEQUENTIAL_QUOTES; i++) {
      const q = nextQuote(i);
      await publish(q.symbol, q.bid, q.ask);
    }
    let seconds = (Date.now() - started) / 1000;
    console.log(
      `1a. ${SEQUENTIAL_QUOTES} quotes each fully evaluated (PublishQuote, ~${OPEN_POSITIONS / SYMBOLS.length} positions per quote): ${(SEQUENTIAL_QUOTES / seconds).toFixed(0)} quotes/s (${(seconds * 1000 / SEQUENTIAL_QUOTES).toFixed(2)} ms each)`,
    );

    // 1b. The feed path: as fast as the stream takes them.
    started = Date.now();
    const streamed = await new Promise<tradingv1.StreamQuotesResponse>((resolve, reject) => {
      const stream = raw.streamQuotes((err, res) => (err ? reject(err) : resolve(res)));
      let i = 0;
      const pump = () => {
        while (i < STREAMED_QUOTES) {
          const ok = stream.write({ quote: nextQuote(i++) });
          if (!ok) {
            stream.once('drain', pump);
            return;
          }
        }
        stream.end();
      };
      pump();
    });
    seconds = (Date.now() - started) / 1000;
    console.log(`1b. ${streamed.accepted} streamed quotes absorbed in ${seconds.toFixed(2)} s: ${(Number(streamed.accepted) / seconds).toFixed(0)} quotes/s (rejected ${streamed.rejected})`);

    // 2. Breaching quote -> committed breach. Quote k breaches only account k (entries are 0.01 apart).
    //    (a) over the feed (StreamQuotes), the commit observed by polling the account's status;
    //    (b) over PublishQuote, which answers after the breach commits and the marks are written.
    const half = Math.floor(breachAccounts.length / 2);
    const feedLatencies: number[] = [];
    const feed = raw.streamQuotes(() => undefined);
    for (let k = breachAccounts.length; k > half; k--) {
      const bid = Number((BREACH_BASE + 0.01 * k - 0.0051).toFixed(5));
      const t0 = process.hrtime.bigint();
      feed.write({ quote: { symbol: 'EURUSD', bid, ask: inDigits(bid + 0.0001, 5) } });
      // Polled every 2 ms on a separate connection: the status is visible once the breach commits.
      for (;;) {
        const { rows } = await pg.query<{ status: string }>('SELECT status FROM accounts.accounts WHERE number = $1', [breachAccounts[k - 1]]);
        if (rows[0]?.status === 'breached') break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      feedLatencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    feed.end();
    const latencies: number[] = [];
    for (let k = half; k >= 1; k--) {
      const bid = Number((BREACH_BASE + 0.01 * k - 0.0051).toFixed(5));
      const t0 = process.hrtime.bigint();
      await publish('EURUSD', bid, inDigits(bid + 0.0001, 5));
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const { rows } = await pg.query<{ n: string }>(
      `SELECT count(*) AS n FROM accounts.accounts WHERE status = 'breached' AND number = ANY($1::bigint[])`,
      [breachAccounts],
    );
    console.log(
      `2a. breaching quote on the feed -> committed breach (status polled every 2 ms), ${feedLatencies.length} breaches: ` +
        `p50 ${ms(percentile(feedLatencies, 0.5))}, p99 ${ms(percentile(feedLatencies, 0.99))}, max ${ms(Math.max(...feedLatencies))} (target p99 < 250 ms)`,
    );
    console.log(
      `2b. breaching PublishQuote -> answer (breach committed, ~${OPEN_POSITIONS / SYMBOLS.length} marks written), ${latencies.length} breaches: ` +
        `p50 ${ms(percentile(latencies, 0.5))}, p99 ${ms(percentile(latencies, 0.99))}, max ${ms(Math.max(...latencies))}; ${rows[0].n} of ${breachAccounts.length} breached`,
    );

    // 3. Report build time for 100,000 deals.
    started = Date.now();
    const reportAccount = await seedDealHistory(pg, org, REPORT_DEALS);
    // Deals written straight into the table skip the summaries a close keeps: rebuild them once, as the repair tool would.
    const stats = require(path.join(ROOT, 'services/accounts/dist/trading/data/deal-stats.js')) as {
      rebuildDealStats(sequelize: Sequelize, accountNumber: number, initialBalance: number): Promise<void>;
    };
    const sequelize = openDatabase({ url: db.url, schema: 'accounts', poolMax: 2 });
    try {
      await stats.rebuildDealStats(sequelize, reportAccount, 100_000);
    } finally {
      await sequelize.close();
    }
    console.log(`seeded ${REPORT_DEALS} deals and rebuilt their summaries in ${Date.now() - started} ms`);
    const times: number[] = [];
    let sections = 0;
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      const res = await call(raw.getReport as unknown as Unary<tradingv1.GetReportRequest, tradingv1.GetReportResponse>, raw, {
        organizationId: org,
        mode: Mode.MODE_LIVE,
        number: String(reportAccount),
      });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      sections = Object.keys(res.report ?? {}).length;
    }
    console.log(
      `3. report of an account with ${REPORT_DEALS} deals (${sections} sections, newest 1000 deals listed), 5 runs over gRPC: ` +
        `first ${ms(times[0])}, median ${ms(percentile(times, 0.5))}, max ${ms(Math.max(...times))} (target < 500 ms)`,
    );
  } finally {
    await pg.end();
    client.close();
    await service.stop();
    await db.drop();
  }
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
