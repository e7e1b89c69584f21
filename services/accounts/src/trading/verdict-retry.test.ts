import { Client } from 'pg';
import { QueryTypes } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { accountsv1, type tradingv1 } from '@propdesk/proto';
import { SCHEMA } from '../main';
import { startHarness, type Harness } from '../test/harness';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * A verdict that fails (here its connection is terminated while it waits for the account's row
 * lock; in production a deadlock, a statement timeout, a restarted database) is not lost until the
 * symbol's next quote: the engine judges the account again about a second later. A warning that
 * failed is sent at the account's next mark, not taken for sent.
 */
let h: Harness;
/** How the engine's verdict pool and the service's own pool appear in pg_stat_activity (main.ts, kit's openDatabase). */
const VERDICTS = `propdesk-${SCHEMA}-verdicts`;
const SERVICE = `propdesk-${SCHEMA}`;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

/** Backends of a pool (by application name) waiting to lock an account row as a verdict or a warning does (not the equity writer's UPDATE). */
async function waitingOnALock(applicationName: string): Promise<number[]> {
  const rows = await h.sql.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = :name AND datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'",
    { replacements: { name: applicationName }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.pid);
}

/**
 * Holds the account's row lock while `during` runs, and cuts the connections of `applicationName`
 * that queue behind it; `meanwhile` runs once they queue, before they are cut.
 */
async function failWhileLocked(n: string, applicationName: string, during: () => Promise<unknown>, meanwhile?: () => Promise<void>): Promise<void> {
  const locker = new Client({ connectionString: h.db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`SELECT 1 FROM ${SCHEMA}.accounts WHERE number = $1 FOR UPDATE`, [n]);
    const done = during();
    const waiting = await waitUntil(async () => {
      const pids = await waitingOnALock(applicationName);
      return pids.length > 0 && pids;
    }, { what: 'a transaction waits on the account row', timeoutMs: 10_000 });
    await meanwhile?.();
    await h.sql.query('SELECT pg_terminate_backend(pid) FROM unnest(CAST(:pids AS int[])) AS pid', { replacements: { pids: `{${waiting.join(',')}}` } });
    await done;
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
  }
}

function stream(quote: { symbol: string; bid: number; ask: number }): Promise<tradingv1.StreamQuotesResponse> {
  return new Promise((resolve, reject) => {
    const call = h.tradingClient.raw.streamQuotes((err, res) => (err ? reject(err) : resolve(res)));
    call.write({ quote });
    call.end();
  });
}

it('a verdict whose transaction failed is taken again within a few seconds, without another quote, and only once', async () => {
  const org = h.newOrg(10);
  const t = tradingHelpers(h, h.sql);
  const [n] = await t.newAccounts(org, 1);
  await t.quote('EURUSD', 1.1, 1.1);
  await t.order(org, n, { symbol: 'EURUSD', volume: 10 });
  // The verdict connections are rehearsed once the engine holds the account: none of them waits on the lock below for that.
  await waitUntil(async () => ((await h.service.engine.metrics.rehearsals.get()).values[0]?.value ?? 0) > 0, { what: 'verdict connections rehearsed', timeoutMs: 10_000 });

  // The breaching quote's verdict waits for the lock; its connection is then cut. Read while the lock
  // is still held (a retry due meanwhile waits on it too), the account is not breached.
  await failWhileLocked(n, VERDICTS, async () => {
    expect(await stream({ symbol: 'EURUSD', bid: 1.0949, ask: 1.095 })).toMatchObject({ accepted: '1', rejected: '0' });
    expect((await t.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
  });

  // No quote follows: the retry alone breaches it.
  await waitUntil(async () => (await t.account(org, n)).status === accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED, { what: 'the account breached', timeoutMs: 5000 });
  expect(await t.events(n, 'account.breached')).toHaveLength(1);
  expect(await t.events(n, 'position.closed')).toHaveLength(1);
  // 10 lots, 0.0051 below the 1.1 entry: -5,100.
  expect(await t.account(org, n)).toMatchObject({ balance: 94_900 });
});

it('a warning whose transaction failed is sent at the next mark below its level, once', async () => {
  const org = h.newOrg(10);
  const t = tradingHelpers(h, h.sql);
  const [n] = await t.newAccounts(org, 1);
  // Warned at 80 % of the 5,000 daily allowance: below 96,000.
  await t.setTerms(n, { warningAtPct: 80 });
  await t.quote('GBPUSD', 1.3, 1.3);
  await t.order(org, n, { symbol: 'GBPUSD', volume: 10 });

  // A tick first: a rehearsal still due from the first test's cut connection runs now, not while the
  // lock below is held (it would wait on it, and the tick with it, which the reload below awaits).
  await h.service.engine.caughtUp();
  // -4,100: past the daily warning level (96,000), short of the breach (95,000). Its warning waits for
  // the lock and is cut. Meanwhile the engine reloads the account (a change to its positions, as an
  // order or another replica makes): the state it indexes then was built while the warning was
  // still taken for sent, and it is that state the failure must arm again.
  await failWhileLocked(
    n,
    SERVICE,
    async () => expect(await stream({ symbol: 'GBPUSD', bid: 1.2959, ask: 1.296 })).toMatchObject({ accepted: '1' }),
    async () => {
      await h.sql.query('UPDATE positions SET updated_at = now() WHERE account_number = :n', { replacements: { n } });
      await h.service.engine.caughtUp();
    },
  );
  expect(await t.events(n, 'account.warning')).toEqual([]);

  // The next quote below the level sends it; the one after does not repeat it.
  expect(await stream({ symbol: 'GBPUSD', bid: 1.2958, ask: 1.2959 })).toMatchObject({ accepted: '1' });
  expect(await stream({ symbol: 'GBPUSD', bid: 1.2957, ask: 1.2958 })).toMatchObject({ accepted: '1' });
  const warnings = await t.events(n, 'account.warning');
  expect(warnings).toEqual([expect.objectContaining({ account: Number(n), rule: 'max_daily_loss' })]);
  expect((await t.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_ACTIVE);
});
