/**
 * SPEC 13 at the accounts service: test mode is a partition of the organization, taken from each
 * request's mode exactly as the organization is. Neither mode's accounts, traders, programs,
 * events or payouts are seen, listed, paged, claimed or changed through the other; test
 * provisioning and resets spend no credit and never raise credits.low.
 */
import { AppError, Mode } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

const LIVE = Mode.MODE_LIVE;
const TEST = Mode.MODE_TEST;

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

const program = (name: string) => ({
  name,
  initial_balance: 50000,
  phases: [{ name: 'challenge', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10 }],
});

const listAll = async (org: string, mode: Mode): Promise<number[]> => {
  const numbers: number[] = [];
  let pageToken = '';
  do {
    const page = await h.api.listAccounts({ organizationId: org, mode, pageSize: 2, pageToken, status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED, jsonView: false });
    numbers.push(...page.accounts.map((a) => Number(a.number)));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return numbers;
};

describe('the test partition', () => {
  it('provisions test accounts without a credit (and without credits.low), numbered with the live ones', async () => {
    const org = h.newOrg(6, 5);
    const test = await h.api.createAccounts({ organizationId: org, mode: TEST, count: 3, program: '', initialBalance: 0 });
    expect(test.accounts.map((a) => a.livemode)).toEqual([false, false, false]);
    expect(h.auth.credits(org)).toBe(6);
    expect([...h.auth.reservations.values()].filter((r) => r.org === org)).toEqual([]);
    const live = await h.api.createAccounts({ organizationId: org, mode: LIVE, count: 2, program: '', initialBalance: 0 });
    expect(live.accounts.map((a) => a.livemode)).toEqual([true, true]);
    expect(h.auth.credits(org)).toBe(4);
    const numbers = [...test.accounts, ...live.accounts].map((a) => Number(a.number));
    expect(new Set(numbers).size).toBe(5);

    const events = await h.api.listEvents({ organizationId: org, mode: TEST, pageSize: 50, pageToken: '', type: '' });
    expect(events.events.map((e) => e.type)).toEqual(['account.created', 'account.created', 'account.created']);
    expect(events.events.every((e) => e.livemode === false)).toBe(true);
    const liveEvents = await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 50, pageToken: '', type: '' });
    expect(liveEvents.events.map((e) => e.type)).toEqual(['account.created', 'account.created', 'credits.low']);
  });

  it('answers another mode’s account not_found on every route, and lists and pages each mode apart', async () => {
    const org = h.newOrg();
    const test = (await h.api.createAccounts({ organizationId: org, mode: TEST, count: 3, program: '', initialBalance: 0 })).accounts.map((a) => Number(a.number));
    const live = (await h.api.createAccounts({ organizationId: org, mode: LIVE, count: 3, program: '', initialBalance: 0 })).accounts.map((a) => Number(a.number));
    expect(await listAll(org, TEST)).toEqual(test);
    expect(await listAll(org, LIVE)).toEqual(live);
    expect(await listAll(org, Mode.MODE_UNSPECIFIED)).toEqual(live);

    const number = String(test[0]);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getAccount', () => h.api.getAccount({ organizationId: org, mode: LIVE, number })],
      ['assignTrader', () => h.api.assignTrader({ organizationId: org, mode: LIVE, number, name: 'X', email: 'x@example.com' })],
      ['unassignTrader', () => h.api.unassignTrader({ organizationId: org, mode: LIVE, number })],
      ['archiveAccount', () => h.api.archiveAccount({ organizationId: org, mode: LIVE, number })],
      ['getCredentials', () => h.api.getCredentials({ organizationId: org, mode: LIVE, number })],
      ['rotateCredentials', () => h.api.rotateCredentials({ organizationId: org, mode: LIVE, number })],
      ['getReport', () => h.trading.getReport({ organizationId: org, mode: LIVE, number })],
      ['getAnalytics', () => h.trading.getAnalytics({ organizationId: org, mode: LIVE, number })],
      ['listPositions', () => h.trading.listPositions({ organizationId: org, mode: LIVE, number, pageSize: 0, pageToken: '', status: tradingv1.PositionStatus.POSITION_STATUS_UNSPECIFIED })],
      ['listPayouts', () => h.trading.listPayouts({ organizationId: org, mode: LIVE, number, pageSize: 0, pageToken: '' })],
      ['breachAccount', () => h.trading.breachAccount({ organizationId: org, mode: LIVE, number, reason: 'x' })],
      ['resetAccount', () => h.trading.resetAccount({ organizationId: org, mode: LIVE, number })],
    ];
    for (const [name, call] of calls) expect({ name, code: (await rejection(call())).code }).toEqual({ name, code: 'not_found' });
    expect((await h.api.getAccount({ organizationId: org, mode: LIVE, number: String(live[0]) })).account?.livemode).toBe(true);
    expect((await h.api.getAccount({ organizationId: org, mode: TEST, number: String(live[0]) }).catch((e: AppError) => e)) as AppError).toMatchObject({
      code: 'not_found',
    });

    const page = await h.api.listAccounts({ organizationId: org, mode: LIVE, pageSize: 1, pageToken: '', status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED, jsonView: true });
    const cursor = await rejection(
      h.api.listAccounts({ organizationId: org, mode: TEST, pageSize: 1, pageToken: page.nextPageToken, status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED, jsonView: true }),
    );
    expect(cursor.code).toBe('invalid_cursor');
  });

  it('claims only the mode’s own accounts, with the mode’s own trader', async () => {
    const org = h.newOrg();
    const [live] = (await h.api.createAccounts({ organizationId: org, mode: LIVE, count: 1, program: '', initialBalance: 0 })).accounts;
    expect((await rejection(h.api.claimAccount({ organizationId: org, mode: TEST, name: 'Ann', email: 'ann@example.com' }))).code).toBe('no_unassigned_accounts');
    const [test] = (await h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: '', initialBalance: 0 })).accounts;
    const claimed = await h.api.claimAccount({ organizationId: org, mode: TEST, name: 'Ann', email: 'ann@example.com' });
    expect(claimed.account?.number).toBe(test.number);
    expect(claimed.trader?.livemode).toBe(false);
    const liveClaim = await h.api.claimAccount({ organizationId: org, mode: LIVE, name: 'Ann', email: 'ann@example.com' });
    expect(liveClaim.account?.number).toBe(live.number);
    expect(liveClaim.trader?.id).not.toBe(claimed.trader?.id);
    expect(liveClaim.trader?.livemode).toBe(true);

    expect((await rejection(h.api.getTrader({ organizationId: org, mode: LIVE, traderId: claimed.trader!.id }))).code).toBe('not_found');
    const found = await h.api.findTraders({ organizationId: org, mode: TEST, ids: [liveClaim.trader!.id, claimed.trader!.id], emails: ['ann@example.com'] });
    expect(found.traders.map((t) => t.id)).toEqual([claimed.trader!.id]);
    const traders = await h.api.listTraders({ organizationId: org, mode: TEST, pageSize: 0, pageToken: '' });
    expect(traders.traders.map((t) => t.id)).toEqual([claimed.trader!.id]);
  });

  it('keeps custom program names per mode; built-ins carry the caller’s mode', async () => {
    const org = h.newOrg();
    const test = await h.api.createProgram({ organizationId: org, mode: TEST, program: program('two-step') });
    expect(test.program).toMatchObject({ name: 'two-step', livemode: false, version: 1 });
    expect((await rejection(h.api.getProgram({ organizationId: org, mode: LIVE, name: 'two-step', version: 0 }))).code).toBe('not_found');
    expect((await rejection(h.api.createAccounts({ organizationId: org, mode: LIVE, count: 1, program: 'two-step', initialBalance: 0 }))).param).toBe('program');
    const live = await h.api.createProgram({ organizationId: org, mode: LIVE, program: program('two-step') });
    expect(live.program).toMatchObject({ name: 'two-step', livemode: true, version: 1 });
    await h.api.updateProgram({ organizationId: org, mode: TEST, name: 'two-step', program: { ...program('two-step'), initial_balance: 25000 } });
    expect((await h.api.getProgram({ organizationId: org, mode: LIVE, name: 'two-step', version: 0 })).program).toMatchObject({ version: 1 });
    expect((await h.api.getProgram({ organizationId: org, mode: TEST, name: 'standard', version: 0 })).program).toMatchObject({ builtin: true, livemode: false });
    expect((await rejection(h.api.createProgram({ organizationId: org, mode: TEST, program: program('standard') }))).code).toBe('conflict');
    const listed = await h.api.listPrograms({ organizationId: org, mode: TEST, pageSize: 0, pageToken: '', status: '' });
    expect(listed.programs.every((p) => p.livemode === false)).toBe(true);
    const account = await h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: 'two-step', initialBalance: 0 });
    expect(account.accounts[0]).toMatchObject({ livemode: false, initialBalance: 25000, programVersion: 2 });
  });

  it('resets a test account without a credit', async () => {
    const org = h.newOrg(0);
    const [account] = (await h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: '', initialBalance: 0 })).accounts;
    const reset = await h.trading.resetAccount({ organizationId: org, mode: TEST, number: account.number });
    expect(reset.account).toMatchObject({ attempt: 2, livemode: false });
    expect(h.auth.credits(org)).toBe(0);
    expect([...h.auth.reservations.values()].filter((r) => r.org === org)).toEqual([]);
  });

  it('passes a test account into a test account of the next phase, whose payout is a test payout', async () => {
    const org = h.newOrg(0);
    await h.api.createProgram({
      organizationId: org,
      mode: TEST,
      program: {
        name: 'to-funded',
        initial_balance: 100000,
        phases: [
          { name: 'Challenge', kind: 'evaluation', profit_target_pct: 1, max_daily_loss_pct: 5, max_total_loss_pct: 10, warning_at_pct: null },
          { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 90, warning_at_pct: null },
        ],
      },
    });
    const [account] = (await h.api.createAccounts({ organizationId: org, mode: TEST, count: 1, program: 'to-funded', initialBalance: 0 })).accounts;
    await h.api.assignTrader({ organizationId: org, mode: TEST, number: account.number, name: 'Jane', email: 'jane@example.com' });
    const quote = (price: number) => h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price } });
    const order = (number: string) =>
      h.trading.placeOrder({ organizationId: org, mode: TEST, number, symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 10, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
    await quote(1.1);
    await order(account.number);
    await quote(1.1011);

    const passed = (await h.api.getAccount({ organizationId: org, mode: TEST, number: account.number })).account!;
    expect(passed.status).toBe(accountsv1.AccountStatus.ACCOUNT_STATUS_PASSED);
    const next = (await h.api.getAccount({ organizationId: org, mode: TEST, number: passed.nextAccount! })).account!;
    expect(next).toMatchObject({ livemode: false, phase: { index: 1, kind: 'funded' } });
    expect((await rejection(h.api.getAccount({ organizationId: org, mode: LIVE, number: next.number }))).code).toBe('not_found');
    const types = (await h.api.listEvents({ organizationId: org, mode: TEST, pageSize: 200, pageToken: '', type: '' })).events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['account.passed', 'account.created', 'account.assigned', 'position.closed']));
    expect((await h.api.listEvents({ organizationId: org, mode: LIVE, pageSize: 200, pageToken: '', type: '' })).events).toEqual([]);

    const position = (await order(next.number)).position!;
    await quote(1.1021);
    await h.trading.closePosition({ organizationId: org, mode: TEST, number: next.number, positionId: position.id });
    const payout = (await h.trading.createPayout({ organizationId: org, mode: TEST, number: next.number })).payout!;
    expect(payout).toMatchObject({ livemode: false, amount: 1000 });
    const listed = await h.trading.listPayouts({ organizationId: org, mode: TEST, number: next.number, pageSize: 0, pageToken: '' });
    expect(listed.payouts.map((p) => [p.id, p.livemode])).toEqual([[payout.id, false]]);
    expect(h.auth.credits(org)).toBe(0);
  });

  it('refuses a mode it does not know, naming it', async () => {
    const org = h.newOrg();
    expect(await rejection(h.api.getAccount({ organizationId: org, mode: 9 as Mode, number: '1' }))).toMatchObject({ code: 'invalid_request', param: 'mode' });
  });
});
