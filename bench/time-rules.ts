/**
 * SPEC 15's time rules at firm scale, against a fresh database and the accounts service started in
 * this process from its compiled dist (`npm run bench -- time-rules`):
 *  1. the quote path: the trading bench's fully evaluated quotes/s with 10,000 positions whose
 *     accounts have inactivity_days and max_phase_days, with and without 100,000 accounts' deadlines
 *     waiting in rule_deadlines (not due), side by side in alternating rounds: the time rules are
 *     scheduled, so a quote never looks at them;
 *  2. a day's expiries: 100,000 accounts whose time limit and inactivity both come due at once
 *     (200,000 deadlines); the service's scheduler (every RULE_DEADLINES_INTERVAL_MS, 5 s) breaches
 *     every account: seconds from the moment they were due to the last one applied (target < 60 s),
 *     and deadlines per second.
 * Sizes: BENCH_TIME_RULES_ACCOUNTS (100,000), BENCH_TIME_RULES_POSITIONS (10,000),
 * BENCH_TIME_RULES_QUOTES (500), BENCH_TIME_RULES_ROUNDS (2).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';
import { customPhase } from './programs/phases';
import { withAccountsService } from './support/in-process-accounts';
import { ROOT } from './support/stack';
import { SYMBOLS } from './trading/seed';

const ACCOUNTS = Number(process.env.BENCH_TIME_RULES_ACCOUNTS ?? 100_000);
const POSITIONS = Number(process.env.BENCH_TIME_RULES_POSITIONS ?? 10_000);
const QUOTES = Number(process.env.BENCH_TIME_RULES_QUOTES ?? 500);
const ROUNDS = Number(process.env.BENCH_TIME_RULES_ROUNDS ?? 2);

const programs = require(path.join(ROOT, 'services/accounts/dist/domain/programs.js')) as {
  termsOfPhase(phase: object, initialBalance: number, currency: string): object;
};
const TERMS = JSON.stringify(programs.termsOfPhase(customPhase(1, { inactivity_days: 30, max_phase_days: 60 }), 100000, 'USD'));
const inDigits = (price: number, digits: number) => Number(price.toFixed(digits));

/** `count` accounts with the time rules' terms, their phase begun `startedDaysAgo` days ago. */
async function insertAccounts(pg: Client, count: number, startedDaysAgo: number): Promise<number[]> {
  const res = await pg.query<{ number: string }>(
    `INSERT INTO accounts.accounts (organization_id, program, terms, phase_name, initial_balance, balance, equity, peak_equity, executor_password_sealed, attempt_started_at)
     SELECT $1, 'idle-or-late', $2::jsonb, 'Phase 1', 100000, 100000, 100000, 100000, 'bench-not-a-secret', now() - make_interval(days => $4)
       FROM generate_series(1, $3::int)
     RETURNING number`,
    [randomUUID(), TERMS, count, startedDaysAgo],
  );
  return res.rows.map((r) => Number(r.number));
}

/** Both time rules of each account, due at `dueAt` (SQL). */
async function insertDeadlines(pg: Client, numbers: number[], dueAt: string): Promise<void> {
  await pg.query(
    `INSERT INTO accounts.rule_deadlines (account_number, rule, due_at)
     SELECT n, r, ${dueAt} FROM unnest($1::bigint[]) AS n, unnest(ARRAY['time_limit', 'inactivity']) AS r`,
    [numbers],
  );
}

/** 1: quotes/s with `POSITIONS` open positions (their accounts with the time rules' terms), with or without waiting deadlines. */
async function quoteRun(withDeadlines: boolean): Promise<number> {
  return withAccountsService('pd_bench_time_rules', async (publish, pg) => {
    const holders = await insertAccounts(pg, POSITIONS, 1);
    await pg.query(
      `INSERT INTO accounts.positions (account_number, organization_id, status, symbol, side, volume, type, open_price, opened_at, trading_day, created_at, updated_at)
       SELECT n, a.organization_id, 'open', ($2::text[])[1 + (i % 10)], CASE WHEN i % 2 = 0 THEN 'buy' ELSE 'sell' END, 0.01, 'market',
              ($3::numeric[])[1 + (i % 10)], now() - interval '1 hour', current_date, now() - interval '1 hour', now() - interval '1 hour'
         FROM unnest($1::bigint[]) WITH ORDINALITY AS t(n, i) JOIN accounts.accounts a ON a.number = t.n`,
      [holders, SYMBOLS.map((s) => s.symbol), SYMBOLS.map((s) => s.mid)],
    );
    if (withDeadlines) {
      await insertDeadlines(pg, holders, `now() + interval '29 days'`);
      await insertDeadlines(pg, await insertAccounts(pg, ACCOUNTS - POSITIONS, 1), `now() + interval '29 days'`);
    }
    for (const s of SYMBOLS) await publish(s.symbol, inDigits(s.mid, s.digits), inDigits(s.mid + s.spread, s.digits));
    const mids = SYMBOLS.map((s) => s.mid);
    const started = Date.now();
    for (let i = 0; i < QUOTES; i++) {
      const k = i % SYMBOLS.length;
      const s = SYMBOLS[k];
      mids[k] = Math.max(s.mid * 0.99, Math.min(s.mid * 1.01, mids[k] + (Math.random() - 0.5) * 2 * s.step));
      await publish(s.symbol, inDigits(mids[k], s.digits), inDigits(mids[k] + s.spread, s.digits));
    }
    return QUOTES / ((Date.now() - started) / 1000);
  });
}

/** 2: every account's two deadlines due at once; the service's scheduler applies them. */
async function expiryRun(): Promise<{ seconds: number; working: number; breached: number; perSecond: number }> {
  return withAccountsService('pd_bench_time_rules', async (_publish, pg) => {
    const numbers = await insertAccounts(pg, ACCOUNTS, 61);
    await insertDeadlines(pg, numbers, `now() + interval '1 second'`);
    const due = Date.now() + 1000;
    let left = Infinity;
    let first = 0;
    while (left > 0 && Date.now() - due < 600_000) {
      await sleep(250);
      left = Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM accounts.rule_deadlines')).rows[0].n);
      if (first === 0 && left < 2 * ACCOUNTS) first = Date.now();
    }
    const seconds = (Date.now() - due) / 1000;
    // From the first deadline applied: the scheduler's pass interval (up to 5 s) and the engine's first load aside.
    const working = (Date.now() - first) / 1000;
    const breached = Number((await pg.query<{ n: string }>(`SELECT count(*) AS n FROM accounts.accounts WHERE status = 'breached'`)).rows[0].n);
    return { seconds, working, breached, perSecond: (2 * ACCOUNTS) / working };
  });
}

export async function run(): Promise<void> {
  const figures = { without: [] as number[], with: [] as number[] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? [false, true] : [true, false];
    for (const withDeadlines of order) {
      const qps = await quoteRun(withDeadlines);
      (withDeadlines ? figures.with : figures.without).push(qps);
      console.log(`1.${round} ${POSITIONS} positions, ${withDeadlines ? `${ACCOUNTS} accounts' deadlines waiting` : 'no deadlines'}: ${qps.toFixed(0)} fully evaluated quotes/s`);
    }
  }
  if (ROUNDS > 0) {
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`1. with / without deadlines: quotes/s x${(mean(figures.with) / mean(figures.without)).toFixed(2)} (target: no measurable cost)`);
  }
  const expiry = await expiryRun();
  console.log(
    `2. ${ACCOUNTS} accounts' time limits and inactivity due at once (${2 * ACCOUNTS} deadlines): applied ${expiry.seconds.toFixed(1)} s after they were due ` +
      `(${expiry.working.toFixed(1)} s from the first applied: ${expiry.perSecond.toFixed(0)} deadlines/s; ${expiry.breached} accounts breached; target < 60 s)`,
  );
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
