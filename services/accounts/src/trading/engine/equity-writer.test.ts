import { randomUUID } from 'node:crypto';
import { createLogger, QueryTypes } from '@propdesk/kit';
import { PROGRAMS } from '../../domain/programs';
import { startHarness, type Harness } from '../../test/harness';
import { AccountTable, BALANCE, EQUITY, PEAK, STRIDE } from './account-table';
import type { Clock } from '../domain/clock';
import type { AccountState } from './account-state';
import { EquityWriter } from './equity-writer';

/**
 * The engine's batched writes of marked equity give way to verdicts: a flush snapshots the marks
 * and writes them a chunk at a time, and each statement waits while a breach or pass is being
 * taken (the engine's verdictsFirst), so a breach never shares the database with a long flush.
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

/** `count` standard accounts of a new organization; their numbers. */
async function insertAccounts(count: number): Promise<number[]> {
  const rows = await h.sql.query<{ number: string }>(
    `INSERT INTO accounts (organization_id, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     SELECT :org, 'standard', :terms::jsonb, 100000, 100000, 100000, 100000, 'not-a-secret' FROM generate_series(1, :count) RETURNING number`,
    { replacements: { org: randomUUID(), terms: JSON.stringify(PROGRAMS.standard), count }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => Number(r.number));
}

/** The account in `slot` as the index loads it: attempt 1, its balance the row's 100,000. */
function indexed(table: AccountTable, slot: number, number: number): void {
  table.states[slot] = { slot, account: { number, initialBalance: 100_000, attempt: 1 } } as AccountState;
  table.hot[slot * STRIDE + BALANCE] = 100_000;
}

it('writes the marks a chunk at a time, each statement held until no verdict runs', async () => {
  const numbers = await insertAccounts(600);
  const table = new AccountTable();
  for (const number of numbers) {
    const slot = table.allocate();
    indexed(table, slot, number);
    table.hot[slot * STRIDE + EQUITY] = 100_123.45;
    table.hot[slot * STRIDE + PEAK] = 100_123.45;
  }
  let asked = 0;
  let verdictsDone = () => {};
  const quiet = new Promise<void>((resolve) => (verdictsDone = resolve));
  let firstAsked = () => {};
  const askedOnce = new Promise<void>((resolve) => (firstAsked = resolve));
  const writer = new EquityWriter(h.sql, createLogger('test', { level: 'silent' }), { threshold: 1, maxAgeMs: 15_000 }, table, async () => {
    asked += 1;
    firstAsked();
    await quiet;
  });
  const written = async () => {
    const [row] = await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM accounts WHERE number IN (:numbers) AND equity = 100123.45`, {
      replacements: { numbers },
      type: QueryTypes.SELECT,
    });
    return Number(row.n);
  };

  const flushing = writer.flush('marks');
  await askedOnce;
  // A verdict runs: the first statement waits for it, nothing is written yet.
  expect(asked).toBe(1);
  expect(await written()).toBe(0);
  verdictsDone();
  await flushing;
  // 600 marks in statements of 250: three, each asked first.
  expect(asked).toBe(3);
  expect(await written()).toBe(600);
  // Written marks are not written again.
  await writer.flush('marks');
  expect(asked).toBe(3);
});

it("leaves the open minutes to the background flush: a caller waiting for its marks never waits for every account's bucket", async () => {
  const numbers = await insertAccounts(3);
  let now = Date.parse('2026-03-02T10:00:30Z');
  const clock = { now: () => now } as Clock;
  const table = new AccountTable();
  const writer = new EquityWriter(h.sql, createLogger('test', { level: 'silent' }), { threshold: 1, maxAgeMs: 15_000 }, table, async () => undefined, clock);
  for (const number of numbers) {
    const slot = table.allocate();
    indexed(table, slot, number);
    table.hot[slot * STRIDE + PEAK] = 100_000;
    writer.mark(slot, 100_050, Date.parse('2026-03-02T10:00:00Z'));
  }
  const minutes = async () => {
    const [row] = await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM equity_minutes WHERE account_number IN (:numbers)`, {
      replacements: { numbers },
      type: QueryTypes.SELECT,
    });
    return Number(row.n);
  };
  const equities = async () =>
    (await h.sql.query<{ equity: string }>(`SELECT equity FROM accounts WHERE number IN (:numbers)`, { replacements: { numbers }, type: QueryTypes.SELECT })).map((r) =>
      Number(r.equity),
    );

  // The open minutes are due (never written, so older than maxAgeMs), but a caller's flush writes its marks only.
  await writer.flush('marks');
  expect(await equities()).toEqual([100_050, 100_050, 100_050]);
  expect(await minutes()).toBe(0);
  expect(writer.lastFlush).toBe(0);
  // The background flush writes them.
  now += 1_000;
  await writer.flush('none');
  expect(await minutes()).toBe(3);
  expect(writer.lastFlush).toBe(now);
});

it('drops a mark made before a payout or reset that committed while the flush was under way', async () => {
  const [paid, reset, untouched] = await insertAccounts(3);
  // The account to be paid out realized its 20,000; the others float it.
  await h.sql.query(`UPDATE accounts SET balance = 120000, equity = 120000, peak_equity = 120000 WHERE number = :paid`, { replacements: { paid } });
  const table = new AccountTable();
  for (const number of [paid, reset, untouched]) {
    const slot = table.allocate();
    indexed(table, slot, number);
    if (number === paid) table.hot[slot * STRIDE + BALANCE] = 120_000;
    // Up 20,000: the peak follows.
    table.hot[slot * STRIDE + EQUITY] = 120_001;
    table.hot[slot * STRIDE + PEAK] = 120_001;
  }
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let snapshotted = () => {};
  const asked = new Promise<void>((resolve) => (snapshotted = resolve));
  const writer = new EquityWriter(h.sql, createLogger('test', { level: 'silent' }), { threshold: 1, maxAgeMs: 15_000 }, table, async () => {
    snapshotted();
    await held;
  });
  const flushing = writer.flush('none');
  await asked;
  // While the flush waits with its snapshot: a payout of the 20,000 (balance, equity and peak
  // back to 100,000) and a reset (a new attempt, the same balance) commit. The third account's
  // mark is still on its money and is written.
  await h.sql.query(`UPDATE accounts SET balance = 100000, equity = 100000, peak_equity = 100000, payout_at = now() WHERE number = :paid`, { replacements: { paid } });
  await h.sql.query(`UPDATE accounts SET attempt = attempt + 1 WHERE number = :reset`, { replacements: { reset } });
  release();
  await flushing;
  const rows = await h.sql.query<{ number: string; equity: string; peak_equity: string }>(`SELECT number, equity, peak_equity FROM accounts WHERE number IN (:numbers) ORDER BY number`, {
    replacements: { numbers: [paid, reset, untouched] },
    type: QueryTypes.SELECT,
  });
  expect(rows.map((r) => [Number(r.number), Number(r.equity), Number(r.peak_equity)])).toEqual([
    [paid, 100_000, 100_000],
    [reset, 100_000, 100_000],
    [untouched, 120_001, 120_001],
  ]);
});
