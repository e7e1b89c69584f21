import { Mode, QueryTypes } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { failure, lifecycleHelpers, phase } from '../test/lifecycle-helpers';
import { tradingHelpers } from '../test/trading-helpers';

/**
 * SPEC 17's gap-proof events against the real service: every event about an account carries its
 * place in that account's events, 1 for the first, +1 for each following one in commit order,
 * whatever wrote it (use cases of the core and of the trading module, the engine's verdicts,
 * progression, resets, payouts) and however many writers race.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const LIVE = Mode.MODE_LIVE;
const { assignedAccount } = lifecycleHelpers(() => h);

interface Numbered {
  type: string;
  sequence: number | null;
  position: number;
}

/** What the outbox holds about an account (its data.account), in position order. */
async function eventsAbout(number: string): Promise<Numbered[]> {
  const rows = await h.sql.query<{ type: string; sequence: string | null; position: string }>(
    `SELECT type, sequence, position FROM events WHERE data->>'account' = :number ORDER BY position`,
    { replacements: { number }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ type: r.type, sequence: r.sequence === null ? null : Number(r.sequence), position: Number(r.position) }));
}

/** Every page of ListEvents for one account, from after `after`, `pageSize` at a time. */
async function accountFeed(org: string, number: string, after?: number, pageSize = 0): Promise<accountsv1.Event[]> {
  const seen: accountsv1.Event[] = [];
  let pageToken = '';
  do {
    const page = await h.api.listEvents({
      organizationId: org,
      mode: LIVE,
      pageSize,
      pageToken,
      type: '',
      account: number,
      afterSequence: after === undefined ? undefined : String(after),
    });
    seen.push(...page.events);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return seen;
}

/**
 * The account's events are numbered 1..N with no gap and no repeat, in the order they committed
 * (for one account that is position order: each writer held the row lock), and the account's
 * feed answers exactly them, in that order. Returns the types in order.
 */
async function expectGapless(org: string, number: string): Promise<string[]> {
  const events = await eventsAbout(number);
  expect(events.length).toBeGreaterThan(0);
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  const feed = await accountFeed(org, number);
  expect(feed.map((e) => Number(e.sequence))).toEqual(events.map((e) => e.sequence));
  expect(feed.map((e) => e.type)).toEqual(events.map((e) => e.type));
  return events.map((e) => e.type);
}

describe('an account’s events are numbered without gaps', () => {
  it('across its whole life: created, assigned, orders, a refusal, a flag, a close, a breach by the engine, a reset, an archive', async () => {
    const org = h.newOrg(10);
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'standard');
    await a.quote('EURUSD', 1.1, 1.1);
    const first = await a.order(org, n, { volume: 1 });
    await a.order(org, n, { volume: 25 }); // above 20 lots: account.flagged before position.opened
    expect(await failure(a.order(org, n, { volume: 60 }))).toMatchObject({ code: 'order_rejected' });
    await h.trading.closePosition({ organizationId: org, mode: LIVE, number: n, positionId: first.id });
    // 25 lots, -0.0025: -6,250, below the 5% daily limit: the engine breaches and closes the rest.
    await a.quote('EURUSD', 1.0975, 1.0975);
    expect((await a.account(org, n)).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
    await h.trading.resetAccount({ organizationId: org, mode: LIVE, number: n });
    await a.order(org, n, { volume: 1 });
    await h.api.unassignTrader({ organizationId: org, mode: LIVE, number: n });
    await h.api.archiveAccount({ organizationId: org, mode: LIVE, number: n });

    expect(await expectGapless(org, n)).toEqual([
      'account.created',
      'account.assigned',
      'position.opened',
      'account.flagged',
      'position.opened',
      'order.rejected',
      'position.closed',
      'position.closed', // the breach closes the 25 lots, then says so
      'account.breached',
      'account.reset',
      'position.opened',
      'account.assigned', // unassigned: trader_id null
      'account.archived',
    ]);
  });

  it('a pass numbers the passed account’s events and starts the next phase’s account at 1; a payout of the funded account continues its numbers', async () => {
    const org = h.newOrg(10);
    await h.api.createProgram({
      organizationId: org,
      mode: LIVE,
      program: {
        name: 'seq-two-step',
        initial_balance: 100000,
        phases: [phase('Phase 1'), { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 80, warning_at_pct: null }],
      },
    });
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'seq-two-step');
    await a.quote('GBPUSD', 1.3, 1.3);
    await a.order(org, n, { symbol: 'GBPUSD', volume: 10 });
    await a.quote('GBPUSD', 1.3013, 1.3013); // +1,300: above the 1% target
    const passed = await a.account(org, n);
    expect(passed.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    expect(await expectGapless(org, n)).toEqual(['account.created', 'account.assigned', 'position.opened', 'position.closed', 'account.passed']);

    const funded = passed.nextAccount as string;
    const nextEvents = await eventsAbout(funded);
    expect(nextEvents.map((e) => [e.type, e.sequence])).toEqual([
      ['account.created', 1],
      ['account.assigned', 2],
    ]);
    const p = await a.order(org, funded, { symbol: 'GBPUSD', volume: 1 });
    await a.quote('GBPUSD', 1.32, 1.32);
    await h.trading.closePosition({ organizationId: org, mode: LIVE, number: funded, positionId: p.id });
    await h.trading.createPayout({ organizationId: org, mode: LIVE, number: funded });
    expect(await expectGapless(org, funded)).toEqual(['account.created', 'account.assigned', 'position.opened', 'position.closed', 'payout.created']);
  });

  it('through the operator controls: a halt and a resume one account at a time and program-wide (set-based), an adjustment, a reinstatement', async () => {
    const org = h.newOrg(10);
    const a = tradingHelpers(h, h.sql);
    const [n, m] = [await assignedAccount(org, 'standard'), await assignedAccount(org, 'standard')];
    await h.api.haltAccount({ organizationId: org, mode: LIVE, number: n, reason: 'compliance review' });
    await h.api.resumeAccount({ organizationId: org, mode: LIVE, number: n });
    // Program-wide, set-based: one UPDATE of every account and one INSERT of their events, racing orders on one of them.
    await a.quote('EURUSD', 1.1, 1.1);
    const orders = Promise.allSettled(Array.from({ length: 5 }, () => a.order(org, m, { volume: 1 })));
    const halted = await h.api.haltProgram({ organizationId: org, mode: LIVE, name: 'standard', reason: 'feed incident' });
    await orders;
    expect(halted.accounts).toBeGreaterThanOrEqual(2);
    await h.api.resumeProgram({ organizationId: org, mode: LIVE, name: 'standard' });
    await h.trading.adjustBalance({ organizationId: org, mode: LIVE, number: n, amount: 250, reason: 'goodwill' });
    await h.trading.breachAccount({ organizationId: org, mode: LIVE, number: n, reason: 'manual review' });
    await h.trading.reinstateAccount({ organizationId: org, mode: LIVE, number: n, reason: 'breach in error' });

    expect(await expectGapless(org, n)).toEqual([
      'account.created',
      'account.assigned',
      'account.halted',
      'account.resumed',
      'account.halted',
      'account.resumed',
      'account.adjusted',
      'account.breached',
      'account.reinstated',
    ]);
    const types = await expectGapless(org, m);
    expect(types.filter((t) => t === 'account.halted' || t === 'account.resumed')).toEqual(['account.halted', 'account.resumed']);
  });

  it('under concurrent orders, closes and quotes on several accounts, then a breach by the engine amid them: no gap, no repeat, commit order', async () => {
    const org = h.newOrg(10);
    const a = tradingHelpers(h, h.sql);
    const numbers = await Promise.all([0, 1, 2].map(() => assignedAccount(org, 'standard')));
    await a.quote('USDJPY', 150, 150);
    const tradeAndClose = async (n: string) => {
      const p = await a.order(org, n, { symbol: 'USDJPY', volume: 1 });
      await h.trading.closePosition({ organizationId: org, mode: LIVE, number: n, positionId: p.id }).catch((err: { code?: string }) => {
        // The breach may come first: the account is no longer active, or the position was closed by it.
        if (err.code !== 'account_breached' && err.code !== 'conflict') throw err;
      });
    };
    const burst = (round: number) =>
      Promise.all([
        ...numbers.flatMap((n) => Array.from({ length: 6 }, () => tradeAndClose(n).catch((err: { code?: string }) => expect(err.code).toBe('account_breached')))),
        a.quote('USDJPY', 150 + round * 0.001, 150 + round * 0.001),
        // long positions held through the burst, so the drop below breaches the first account
        ...(round === 0 ? [a.order(org, numbers[0], { symbol: 'USDJPY', volume: 40 })] : []),
      ]);
    for (let round = 0; round < 3; round += 1) await burst(round);
    // The drop and more orders at once: the engine's verdict races the writes.
    await Promise.all([
      a.quote('USDJPY', 148.5, 148.5),
      ...numbers.map((n) => tradeAndClose(n).catch((err: { code?: string }) => expect(err.code).toBe('account_breached'))),
    ]);
    expect((await a.account(org, numbers[0])).status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED);
    for (const n of numbers) {
      const events = await eventsAbout(n);
      expect(events.length).toBeGreaterThan(10);
      await expectGapless(org, n);
    }
    expect((await eventsAbout(numbers[0])).map((e) => e.type)).toContain('account.breached');
  });
});

describe('the account’s feed', () => {
  it('pages by sequence after after_sequence, with cursors; other accounts and other modes are not in it', async () => {
    const org = h.newOrg(10);
    const a = tradingHelpers(h, h.sql);
    const n = await assignedAccount(org, 'standard');
    const other = await assignedAccount(org, 'standard');
    await a.quote('EURUSD', 1.1, 1.1);
    for (let i = 0; i < 5; i += 1) await a.order(org, n, { volume: 1 });
    await a.order(org, other, { volume: 1 });

    const all = await accountFeed(org, n, undefined, 2);
    expect(all.map((e) => Number(e.sequence))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(all.every((e) => (e.data as { account?: number }).account === Number(n))).toBe(true);
    const rest = await accountFeed(org, n, 4, 2);
    expect(rest.map((e) => Number(e.sequence))).toEqual([5, 6, 7]);
    expect(await accountFeed(org, n, 7)).toEqual([]);
    // One type of the account's events: their own numbers, still in order.
    const opened = await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 0, pageToken: '', type: 'position.opened', account: n });
    expect(opened.events.map((e) => Number(e.sequence))).toEqual([3, 4, 5, 6, 7]);

    // Another organization, or the test mode of this one, sees nothing of the account.
    const stranger = await h.api.listEvents({ organizationId: h.newOrg(), mode: LIVE, pageSize: 0, pageToken: '', type: '', account: n });
    expect(stranger.events).toEqual([]);
    const testMode = await h.api.listEvents({ organizationId: org, mode: Mode.MODE_TEST, pageSize: 0, pageToken: '', type: '', account: n });
    expect(testMode.events).toEqual([]);
    // A cursor of the account's feed is not one of another account's, nor of the whole feed.
    const page = await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 2, pageToken: '', type: '', account: n });
    expect(await failure(h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 2, pageToken: page.nextPageToken, type: '', account: other }))).toMatchObject({
      code: 'invalid_cursor',
    });
    expect(await failure(h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 2, pageToken: page.nextPageToken, type: '' }))).toMatchObject({ code: 'invalid_cursor' });
  });

  it('refuses a malformed account or after_sequence naming it, and after_sequence without account', async () => {
    const org = h.newOrg(10);
    const list = (fields: Partial<accountsv1.ListEventsRequest>) => failure(h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 0, pageToken: '', type: '', ...fields }));
    expect(await list({ account: '0' })).toMatchObject({ code: 'invalid_request', param: 'account' });
    expect(await list({ account: '-3' })).toMatchObject({ code: 'invalid_request', param: 'account' });
    expect(await list({ account: '1000001', afterSequence: '-1' })).toMatchObject({ code: 'invalid_request', param: 'after_sequence' });
    expect(await list({ afterSequence: '3' })).toMatchObject({ code: 'invalid_request', param: 'after_sequence' });
  });

  it('events about no account carry no sequence: credits.low', async () => {
    const org = h.newOrg(12, 10);
    await h.api.createAccounts({ organizationId: org, mode: LIVE, count: 3, program: '', initialBalance: 0 });
    const page = await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 0, pageToken: '', type: 'credits.low' });
    expect(page.events).toHaveLength(1);
    expect(page.events[0].sequence).toBeUndefined();
    const created = await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 0, pageToken: '', type: 'account.created' });
    expect(created.events.map((e) => e.sequence)).toEqual(['1', '1', '1']);
  });
});
