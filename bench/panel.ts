/**
 * Issue 15's benchmark: the back-office panel on an account with 100,000 deals and a year of
 * per-minute equity history (525,600 minute buckets, one deep dip), the whole product running as
 * `npm start` runs it (every service in its own process, against a fresh database):
 *  1. the equity endpoint for the whole year: gRPC GetEquityCurve (max_points 1000, and unset =
 *     5000), REST GET /v1/accounts/{n}/equity, the panel's /panel/api/accounts/{n}/equity; points
 *     answered and median time of 10 calls each;
 *  2. the account page opened in Chromium (playwright-core, Debian's /usr/bin/chromium) from its
 *     URL until every part is fetched and the chart is drawn; 5 opens, median and max (target < 1 s).
 * Needs the built panel (`npm run bench` builds it first).
 */
import path from 'node:path';
import { Client } from 'pg';
import { chromium } from 'playwright-core';
import { createServiceClient, Mode, openDatabase, type Sequelize } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { admin, ROOT, startProcessStack } from './support/stack';
import { seedDealHistory } from './trading/seed';

const DEALS = Number(process.env.BENCH_PANEL_DEALS ?? 100_000);
const MINUTES = 365 * 24 * 60;
const PASSWORD = 'correct horse battery';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ms = (n: number) => `${n.toFixed(1)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function timed<T>(runs: number, fn: () => Promise<T>): Promise<{ times: number[]; last: T }> {
  const times: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i += 1) {
    const t0 = process.hrtime.bigint();
    last = await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { times, last: last as T };
}

/** A year of per-minute equity ending now: a slow wave around the balance, and one dip to 90,500 in March. */
async function seedEquityYear(pg: Client, number: number): Promise<void> {
  await pg.query(
    `INSERT INTO accounts.equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT $1, date_trunc('minute', now()) - make_interval(mins => $2 - m), e, e + 15, CASE WHEN m = $3 THEN 90500 ELSE e - 15 END, e, 100000
       FROM generate_series(1, $2::int) AS m,
            LATERAL (SELECT 100000 + round((sin(m / 9000.0) * 3000 + sin(m / 300.0) * 250)::numeric, 2) AS e) x`,
    [number, MINUTES, Math.floor(MINUTES / 4)],
  );
  await pg.query('ANALYZE accounts.equity_minutes');
}

export async function run(): Promise<void> {
  const stack = await startProcessStack();
  const pg = new Client({ connectionString: stack.db.url });
  await pg.connect();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, stack.env.ACCOUNTS_GRPC_ADDRESS ?? '', 30_000);
  try {
    const org = String((await admin(stack.env, ['org:create', '--name', 'Bench Firm', '--credits', '10'])).id);
    await admin(stack.env, ['user:create', '--org', org, '--email', 'owner@bench.example', '--password', PASSWORD, '--role', 'owner']);
    const key = String((await admin(stack.env, ['key:create', '--org', org, '--name', 'bench', '--scopes', 'accounts:read'])).token);

    let started = Date.now();
    const number = await seedDealHistory(pg, org, DEALS);
    await seedEquityYear(pg, number);
    // Deals and minutes written straight into the tables skip the summaries and hour rollups that
    // trading keeps: rebuild them once, as the repair tools would.
    const stats = require(path.join(ROOT, 'services/accounts/dist/trading/data/deal-stats.js')) as {
      rebuildDealStats(sequelize: Sequelize, accountNumber: number, initialBalance: number): Promise<void>;
    };
    const equity = require(path.join(ROOT, 'services/accounts/dist/trading/data/equity-minutes.js')) as {
      rebuildEquityHours(sequelize: Sequelize, accountNumber: number): Promise<void>;
    };
    const sequelize = openDatabase({ url: stack.db.url, schema: 'accounts', poolMax: 2 });
    try {
      await stats.rebuildDealStats(sequelize, number, 100_000);
      await equity.rebuildEquityHours(sequelize, number);
    } finally {
      await sequelize.close();
    }
    console.log(`seeded account ${number}: ${DEALS} deals, ${MINUTES} minutes of equity, in ${Date.now() - started} ms`);

    // 1. The equity endpoint over the whole year.
    for (const maxPoints of [1000, undefined]) {
      const { times, last } = await timed(10, () => trading.call.getEquityCurve({ organizationId: org, mode: Mode.MODE_LIVE, number: String(number), maxPoints }));
      const lowest = Math.min(...last.points.map((p) => p.equity));
      console.log(
        `1a. gRPC GetEquityCurve, a year, max_points ${maxPoints ?? 'unset (5000)'}: ${last.points.length} points (lowest ${lowest}), ` +
          `median ${ms(median(times))}, max ${ms(Math.max(...times))}`,
      );
    }
    const rest = await timed(10, async () => {
      const res = await fetch(`${stack.url}/v1/accounts/${number}/equity`, { headers: { authorization: `Bearer ${key}` } });
      return ((await res.json()) as { data: unknown[] }).data.length;
    });
    console.log(`1b. REST GET /v1/accounts/{n}/equity, a year: ${rest.last} points, median ${ms(median(rest.times))}, max ${ms(Math.max(...rest.times))}`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${stack.url}/panel/sign-in`);
    await page.getByLabel('Email').fill('owner@bench.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const panel = await timed(10, async () => {
      const res = await fetch(`${stack.url}/panel/api/accounts/${number}/equity`, { headers: { cookie } });
      return ((await res.json()) as { data: unknown[] }).data.length;
    });
    console.log(`1c. panel GET /panel/api/accounts/{n}/equity, a year: ${panel.last} points, median ${ms(median(panel.times))}, max ${ms(Math.max(...panel.times))}`);

    // What the page fetches, one by one (the page fetches them in parallel).
    const parts: string[] = [];
    for (const part of ['', '/analytics', '/terms', '/trades', '/flags', '/positions?status=open']) {
      const { times } = await timed(5, async () => (await fetch(`${stack.url}/panel/api/accounts/${number}${part}`, { headers: { cookie } })).arrayBuffer());
      parts.push(`${part || '(account)'} ${ms(median(times))}`);
    }
    console.log(`1d. the page's other calls, median of 5 each: ${parts.join(', ')}`);

    // 2. The account page, from its URL to every part fetched and the chart drawn.
    started = Date.now();
    const opens = await timed(5, async () => {
      await page.goto('about:blank');
      const t0 = Date.now();
      await page.goto(`${stack.url}/panel/accounts/${number}`);
      await page.locator('figure[data-state="drawn"]').waitFor();
      await page.getByRole('table', { name: 'Trades' }).locator('tbody tr td.num').first().waitFor();
      await page.getByRole('table', { name: 'Flags and breaches' }).waitFor();
      await page.getByRole('table', { name: 'Open positions' }).waitFor();
      await page.getByText('1:100').waitFor();
      await page.getByRole('table', { name: /^Limits/ }).locator('td.num').first().waitFor();
      return Date.now() - t0;
    });
    // Where the last open's time went: the document, then each request from its start to its end (ms from navigation start).
    const waterfall = await page.evaluate(() => {
      // (In the page: the DOM's performance timeline, typed loosely here since the bench compiles without the DOM's types.)
      type Entry = { name: string; startTime: number; responseEnd: number; domContentLoadedEventEnd: number; loadEventEnd: number };
      const entries = (kind: string) => (performance as unknown as { getEntriesByType(k: string): Entry[] }).getEntriesByType(kind);
      const nav = entries('navigation')[0];
      const parts = [`document ${Math.round(nav.responseEnd)}`, `DOMContentLoaded ${Math.round(nav.domContentLoadedEventEnd)}`, `load ${Math.round(nav.loadEventEnd)}`];
      for (const r of entries('resource')) {
        parts.push(`${new URL(r.name).pathname.replace(/^\/panel\/api\/accounts\/\d+/, '{n}')} ${Math.round(r.startTime)}-${Math.round(r.responseEnd)}`);
      }
      return parts.join(', ');
    });
    console.log(`2a. the last open, ms from navigation start: ${waterfall}`);
    await page.screenshot({ path: path.join(ROOT, 'bench', 'dist', 'panel-account-page.png'), fullPage: false });
    console.log(
      `2. account page (${DEALS} deals, a year of equity) opened in Chromium until fetched and drawn, 5 opens: ` +
        `first ${ms(opens.times[0] ?? 0)}, median ${ms(median(opens.times))}, max ${ms(Math.max(...opens.times))} (target < 1000 ms)`,
    );
    await context.close();
  } finally {
    trading.close();
    await browser.close();
    await pg.end();
    await stack.stop();
  }
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
