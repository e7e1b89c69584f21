/**
 * SPEC 14's audit log through the whole stack: every kind of change made through the REST API,
 * the panel or the CLI leaves its entry, naming who (actor), the request (X-Request-Id), the
 * client's address, the mode and the fields that changed; no entry holds a secret.
 */
import { waitUntil } from '@propdesk/kit/testing';
import { startStack, type CreatedKey, type Organization, type Stack } from '../support/stack';
import { AUDIT_SCOPES, AUDITED_SCHEMAS, cli, panel, v1, wholeLog, withDatabase, type Answer, type AuditEntryJson } from './audit-helpers';

let stack: Stack;
let org: Organization;
let key: CreatedKey;
let owner: { id: string; email: string; password: string };
let cookie: string;
/** Every secret the changes below handled: none may be in any entry. */
const secrets: string[] = [];

const quote = (symbol: string, price: number) => stack.admin.trading.call.publishQuote({ quote: { symbol, bid: price, ask: price, time: new Date() } });

beforeAll(async () => {
  stack = await startStack();
  org = await stack.createOrg();
  key = await stack.createKey(org.id, AUDIT_SCOPES, 'integration');
  owner = await stack.createUser(org.id, { role: 'owner' });
  cookie = await stack.panelLogin(owner.email, owner.password);
  secrets.push(key.token, owner.password);
  await quote('EURUSD', 1.1);
});

afterAll(async () => {
  await stack?.stop();
});

/** The entries a request left, oldest first (they share its request id). */
async function entriesOf(answer: Answer<unknown>, token = key.token): Promise<AuditEntryJson[]> {
  expect(answer.requestId).not.toBe('');
  return (await wholeLog(stack, token)).filter((e) => e.request_id === answer.requestId).reverse();
}

const byApiKey = (by = key) => ({ type: 'api_key', id: by.id, label: by.prefix });
const LOOPBACK = expect.stringMatching(/127\.0\.0\.1$/);

/** A REST write succeeded and left exactly these entries (action and target id), made by the key (a live one unless said) from this machine. */
async function expectRestEntries(answer: Answer<unknown>, expected: Array<[string, string]>, by = key, livemode = true): Promise<AuditEntryJson[]> {
  expect(answer.status).toBeLessThan(300);
  const entries = await entriesOf(answer, by.token);
  expect(entries.map((e) => [e.action, e.target.id])).toEqual(expected);
  for (const entry of entries) expect(entry).toMatchObject({ actor: byApiKey(by), ip: LOOPBACK, livemode, request_id: answer.requestId });
  return entries;
}

/** A funded program whose payouts wait for approval and a new account of it, both made by the key over REST. */
async function approvalAccount(program: string): Promise<number> {
  const phases = [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, payout_requires_approval: true }];
  expect((await v1(stack, key.token, 'POST', '/v1/programs', '/v1/programs', { name: program, initial_balance: 50000, phases })).status).toBe(201);
  return (await v1<{ data: Array<{ number: number }> }>(stack, key.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1, program })).body.data[0].number;
}

const requestPayout = (number: number, amount: number) => v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`, { amount });

/** A delivery the dispatcher is done with, shown as failed (its lease dropped, so no attempt in flight can record over it). */
const failDelivery = (id: string) =>
  withDatabase(stack, (db) => db.query(`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, last_attempt_at = now(), locked_until = NULL, lease_token = NULL WHERE id = $1`, [id]));
const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

describe('through the REST API, with an API key', () => {
  it('accounts: provisioning, assignment, claim, unassignment, credentials, archive', async () => {
    const created = await v1<{ data: Array<{ number: number }> }>(stack, key.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 3 });
    const [a, b, c] = created.body.data.map((x) => x.number);
    const provisioned = await expectRestEntries(created, [['account.create', String(a)], ['account.create', String(b)], ['account.create', String(c)]]);
    expect(provisioned[0].target.type).toBe('account');
    expect(provisioned[0].changes).toMatchObject({ status: [null, 'active'], program: [null, 'standard'], initial_balance: [null, 100000] });

    const assigned = await v1<{ trader: { id: string } }>(stack, key.token, 'PUT', '/v1/accounts/{number}/trader', `/v1/accounts/${a}/trader`, { name: 'Jane', email: 'jane@example.com' });
    const [traderCreated, assignment] = await expectRestEntries(assigned, [['trader.create', assigned.body.trader.id], ['account.assign', String(a)]]);
    expect(traderCreated.changes).toEqual({ name: [null, 'Jane'], email: [null, 'jane@example.com'] });
    expect(assignment.changes).toEqual({ trader_id: [null, assigned.body.trader.id] });

    const claimed = await v1<{ account: { number: number }; trader: { id: string } }>(stack, key.token, 'POST', '/v1/accounts/claim', '/v1/accounts/claim', { name: 'Jane', email: 'jane@example.com' });
    const [claim] = await expectRestEntries(claimed, [['account.claim', String(claimed.body.account.number)]]);
    expect(claim.changes).toEqual({ trader_id: [null, assigned.body.trader.id] });

    const unassigned = await v1(stack, key.token, 'DELETE', '/v1/accounts/{number}/trader', `/v1/accounts/${a}/trader`);
    expect((await expectRestEntries(unassigned, [['account.unassign', String(a)]]))[0].changes).toEqual({ trader_id: [assigned.body.trader.id, null] });

    const rotated = await v1<{ password: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/credentials/rotate', `/v1/accounts/${b}/credentials/rotate`);
    secrets.push(rotated.body.password);
    expect((await expectRestEntries(rotated, [['account.rotate_credentials', String(b)]]))[0].changes).toEqual({});
    const shown = await v1<{ password: string }>(stack, key.token, 'GET', '/v1/accounts/{number}/credentials', `/v1/accounts/${c}/credentials`);
    secrets.push(shown.body.password);

    const archived = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/archive', `/v1/accounts/${c}/archive`);
    expect((await expectRestEntries(archived, [['account.archive', String(c)]]))[0].changes).toEqual({ status: ['active', 'archived'] });
  });

  it('traders and programs', async () => {
    const trader = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/traders', '/v1/traders', { name: 'Ann', email: 'ann@example.com' });
    await expectRestEntries(trader, [['trader.create', trader.body.id]]);
    const again = await v1(stack, key.token, 'POST', '/v1/traders', '/v1/traders', { name: 'Ann', email: 'ann@example.com' });
    expect(await entriesOf(again)).toEqual([]);

    const phases = [{ name: 'Phase 1', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10 }];
    const program = await v1(stack, key.token, 'POST', '/v1/programs', '/v1/programs', { name: 'audited', initial_balance: 50000, phases });
    const [created] = await expectRestEntries(program, [['program.create', 'audited']]);
    expect(created.changes).toMatchObject({ version: [null, 1], initial_balance: [null, 50000], status: [null, 'active'] });
    const updated = await v1(stack, key.token, 'PUT', '/v1/programs/{name}', '/v1/programs/audited', { initial_balance: 60000, phases });
    expect((await expectRestEntries(updated, [['program.update', 'audited']]))[0].changes).toEqual({ version: [1, 2], initial_balance: [50000, 60000] });
    const archived = await v1(stack, key.token, 'POST', '/v1/programs/{name}/archive', '/v1/programs/audited/archive');
    expect((await expectRestEntries(archived, [['program.archive', 'audited']]))[0].changes).toEqual({ status: ['active', 'archived'] });
  });

  it('orders opened, closed and cancelled, a manual breach, a reset and a payout', async () => {
    const [number] = (await v1<{ data: Array<{ number: number }> }>(stack, key.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1 })).body.data.map((x) => x.number);
    const opened = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market' });
    const [open] = await expectRestEntries(opened, [['position.create', opened.body.id]]);
    expect(open.changes).toMatchObject({ account: [null, number], status: [null, 'open'], symbol: [null, 'EURUSD'], side: [null, 'buy'], volume: [null, 1] });
    const closed = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/${opened.body.id}/close`);
    expect((await expectRestEntries(closed, [['position.close', opened.body.id]]))[0].changes).toMatchObject({ status: ['open', 'closed'] });
    const pending = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { symbol: 'EURUSD', side: 'buy', volume: 1, type: 'limit', price: 1.05 });
    const cancelled = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/${pending.body.id}/close`);
    expect((await expectRestEntries(cancelled, [['position.cancel', pending.body.id]]))[0].changes).toEqual({ status: ['pending', 'cancelled'] });

    const breached = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { reason: 'copy trading' });
    expect((await expectRestEntries(breached, [['account.breach', String(number)]]))[0].changes).toEqual({ status: ['active', 'breached'], reason: [null, 'copy trading'] });
    const reset = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`);
    expect((await expectRestEntries(reset, [['account.reset', String(number)]]))[0].changes).toMatchObject({ status: ['breached', 'active'], attempt: [1, 2] });

    await v1(stack, key.token, 'POST', '/v1/programs', '/v1/programs', { name: 'funded-now', initial_balance: 50000, phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 }] });
    const [funded] = (await v1<{ data: Array<{ number: number }> }>(stack, key.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1, program: 'funded-now' })).body.data.map((x) => x.number);
    await quote('XAUUSD', 2300);
    const gold = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/positions', `/v1/accounts/${funded}/positions`, { symbol: 'XAUUSD', side: 'buy', volume: 1 });
    await quote('XAUUSD', 2310);
    await v1(stack, key.token, 'POST', '/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${funded}/positions/${gold.body.id}/close`);
    const payout = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/payouts', `/v1/accounts/${funded}/payouts`, { amount: 600 });
    expect((await expectRestEntries(payout, [['payout.request', payout.body.id]]))[0].changes).toMatchObject({ account: [null, funded], amount: [null, 600] });
  });

  it('webhooks: registration, test event, retry, secret rotation, enabling, deletion', async () => {
    const created = await v1<{ id: string; secret: string }>(stack, key.token, 'POST', '/v1/webhooks', '/v1/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['account.breached'] });
    secrets.push(created.body.secret);
    const id = created.body.id;
    const [registration] = await expectRestEntries(created, [['webhook.create', id]]);
    expect(registration.changes).toEqual({ url: [null, 'https://127.0.0.1:9/hook'], events: [null, ['account.breached']], status: [null, 'enabled'] });
    const test = await v1<{ delivery_id: string }>(stack, key.token, 'POST', '/v1/webhooks/{id}/test', `/v1/webhooks/${id}/test`);
    await expectRestEntries(test, [['webhook.test', id]]);
    const retry = await v1(stack, key.token, 'POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', `/v1/webhooks/${id}/deliveries/${test.body.delivery_id}/retry`);
    expect((await expectRestEntries(retry, [['webhook.retry', id]]))[0].changes).toMatchObject({ delivery_id: [null, test.body.delivery_id] });
    const rotated = await v1<{ secret: string }>(stack, key.token, 'POST', '/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${id}/rotate-secret`, { previous_expires_in: 60 });
    secrets.push(rotated.body.secret);
    expect(Object.keys((await expectRestEntries(rotated, [['webhook.rotate_secret', id]]))[0].changes)).toEqual(['previous_secret_expires_at']);
    // Enabling an enabled endpoint changes nothing; a disabled one is enabled and audited.
    expect(await entriesOf(await v1(stack, key.token, 'POST', '/v1/webhooks/{id}/enable', `/v1/webhooks/${id}/enable`))).toEqual([]);
    await withDatabase(stack, (db) => db.query(`UPDATE webhooks.endpoints SET status = 'disabled' WHERE id = $1`, [id]));
    const enabled = await v1(stack, key.token, 'POST', '/v1/webhooks/{id}/enable', `/v1/webhooks/${id}/enable`);
    expect((await expectRestEntries(enabled, [['webhook.enable', id]]))[0].changes).toEqual({ status: ['disabled', 'enabled'] });
    const deleted = await v1(stack, key.token, 'DELETE', '/v1/webhooks/{id}', `/v1/webhooks/${id}`);
    expect((await expectRestEntries(deleted, [['webhook.delete', id]]))[0].changes).toMatchObject({ url: ['https://127.0.0.1:9/hook', null] });
  });

  it('webhooks: an edit (the fields it changed) and a recovery of failed deliveries', async () => {
    const created = await v1<{ id: string; secret: string }>(stack, key.token, 'POST', '/v1/webhooks', '/v1/webhooks', { url: 'https://127.0.0.1:9/edited', events: ['account.breached'] });
    secrets.push(created.body.secret);
    const id = created.body.id;
    const edit = { events: ['account.breached'], description: 'risk desk' };
    const edited = await v1(stack, key.token, 'PATCH', '/v1/webhooks/{id}', `/v1/webhooks/${id}`, edit);
    expect((await expectRestEntries(edited, [['webhook.update', id]]))[0].changes).toEqual({ description: [null, 'risk desk'] });
    expect(await entriesOf(await v1(stack, key.token, 'PATCH', '/v1/webhooks/{id}', `/v1/webhooks/${id}`, edit))).toEqual([]);

    const test = await v1<{ delivery_id: string }>(stack, key.token, 'POST', '/v1/webhooks/{id}/test', `/v1/webhooks/${id}/test`);
    await failDelivery(test.body.delivery_id);
    const since = anHourAgo();
    const recovered = await v1<{ redelivered: number }>(stack, key.token, 'POST', '/v1/webhooks/{id}/recover', `/v1/webhooks/${id}/recover`, { since });
    expect(recovered.body.redelivered).toBe(1);
    expect((await expectRestEntries(recovered, [['webhook.recover', id]]))[0].changes).toEqual({ since: [null, since], redelivered: [0, 1] });
    // Nothing failed is left: the second recovery changes nothing and records nothing.
    expect(await entriesOf(await v1(stack, key.token, 'POST', '/v1/webhooks/{id}/recover', `/v1/webhooks/${id}/recover`, { since }))).toEqual([]);
  });

  it('operations: adjustments, payouts requested, approved, paid and rejected, KYC, halts of an account and of a program, a reinstatement', async () => {
    const number = await approvalAccount('approved-payouts');
    const credit = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/accounts/{number}/adjustments', `/v1/accounts/${number}/adjustments`, { amount: 2000, reason: 'booked profit' });
    expect((await expectRestEntries(credit, [['account.adjust', String(number)]]))[0].changes).toEqual({
      balance: [50000, 52000],
      adjustment_id: [null, credit.body.id],
      amount: [null, 2000],
      reason: [null, 'booked profit'],
    });

    const [first, second] = [await requestPayout(number, 500), await requestPayout(number, 300)];
    expect((await expectRestEntries(first, [['payout.request', first.body.id]]))[0].changes).toMatchObject({ status: [null, 'pending'], amount: [null, 500] });
    const approved = await v1(stack, key.token, 'POST', '/v1/payouts/{id}/approve', `/v1/payouts/${first.body.id}/approve`);
    expect((await expectRestEntries(approved, [['payout.approve', first.body.id]]))[0].changes).toEqual({ status: ['pending', 'approved'], balance: [52000, 51500] });
    const paid = await v1(stack, key.token, 'POST', '/v1/payouts/{id}/mark-paid', `/v1/payouts/${first.body.id}/mark-paid`, { reference: 'wire 2025-001' });
    expect((await expectRestEntries(paid, [['payout.mark_paid', first.body.id]]))[0].changes).toEqual({ status: ['approved', 'paid'], reference: [null, 'wire 2025-001'] });
    const rejected = await v1(stack, key.token, 'POST', '/v1/payouts/{id}/reject', `/v1/payouts/${second.body.id}/reject`, { reason: 'asked twice' });
    expect((await expectRestEntries(rejected, [['payout.reject', second.body.id]]))[0].changes).toEqual({ status: ['pending', 'rejected'], reason: [null, 'asked twice'] });

    const trader = await v1<{ id: string }>(stack, key.token, 'POST', '/v1/traders', '/v1/traders', { name: 'Kim', email: 'kim@example.com' });
    const kyc = await v1(stack, key.token, 'POST', '/v1/traders/{id}/kyc', `/v1/traders/${trader.body.id}/kyc`, { status: 'verified', reference: 'case 7' });
    expect((await expectRestEntries(kyc, [['trader.kyc', trader.body.id]]))[0].changes).toEqual({ kyc_status: ['unverified', 'verified'], kyc_reference: [null, 'case 7'] });

    const halted = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/halt', `/v1/accounts/${number}/halt`, { reason: 'under review' });
    expect((await expectRestEntries(halted, [['account.halt', String(number)]]))[0].changes).toEqual({ trading_halted: [false, true], reason: [null, 'under review'] });
    const resumed = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/resume', `/v1/accounts/${number}/resume`);
    expect((await expectRestEntries(resumed, [['account.resume', String(number)]]))[0].changes).toEqual({ trading_halted: [true, false] });

    // A program's halt is one entry, the program's, counting the accounts it halted (each account has its event).
    const programHalt = await v1(stack, key.token, 'POST', '/v1/programs/{name}/halt', '/v1/programs/approved-payouts/halt', { reason: 'desk closed' });
    expect((await expectRestEntries(programHalt, [['program.halt', 'approved-payouts']]))[0].changes).toEqual({ trading_halted: [false, true], accounts: [0, 1], reason: [null, 'desk closed'] });
    const programResume = await v1(stack, key.token, 'POST', '/v1/programs/{name}/resume', '/v1/programs/approved-payouts/resume');
    expect((await expectRestEntries(programResume, [['program.resume', 'approved-payouts']]))[0].changes).toEqual({ trading_halted: [true, false], accounts: [0, 1] });
    expect(await entriesOf(await v1(stack, key.token, 'POST', '/v1/programs/{name}/resume', '/v1/programs/approved-payouts/resume'))).toEqual([]);

    await v1(stack, key.token, 'POST', '/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { reason: 'hedging' });
    const reinstated = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/reinstate', `/v1/accounts/${number}/reinstate`, { reason: 'reviewed, no hedging' });
    expect((await expectRestEntries(reinstated, [['account.reinstate', String(number)]]))[0].changes).toEqual({ status: ['breached', 'active'], reason: [null, 'reviewed, no hedging'] });
  });

  it('test clocks with a test key: created, priced, an account on one, advanced and deleted (livemode false)', async () => {
    const testKey = await stack.createKey(org.id, AUDIT_SCOPES, 'sandbox', { mode: 'test' });
    secrets.push(testKey.token);
    const created = await v1<{ id: string }>(stack, testKey.token, 'POST', '/v1/test_clocks', '/v1/test_clocks', { frozen_time: '2025-03-05T09:00:00Z', name: 'audit walk' });
    const id = created.body.id;
    expect((await expectRestEntries(created, [['test_clock.create', id]], testKey, false))[0].changes).toEqual({
      name: [null, 'audit walk'],
      frozen_time: [null, '2025-03-05T09:00:00.000Z'],
      status: [null, 'ready'],
    });
    // A clock's price moved by a key is a change of the clock (it fills and breaches its accounts); it began at the market's.
    const priced = await v1(stack, testKey.token, 'POST', '/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${id}/quotes`, { symbol: 'EURUSD', bid: 1.2, ask: 1.2002 });
    expect((await expectRestEntries(priced, [['test_clock.quote', id]], testKey, false))[0].changes).toEqual({ EURUSD: [{ bid: 1.1, ask: 1.1 }, { bid: 1.2, ask: 1.2002 }] });
    const account = await v1<{ data: Array<{ number: number }> }>(stack, testKey.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1, test_clock: id });
    const number = String(account.body.data[0].number);
    expect((await expectRestEntries(account, [['account.create', number]], testKey, false))[0].changes).toMatchObject({ status: [null, 'active'], test_clock: [null, id] });

    const advanced = await v1(stack, testKey.token, 'POST', '/v1/test_clocks/{id}/advance', `/v1/test_clocks/${id}/advance`, { frozen_time: '2025-03-06T09:00:00Z' });
    expect((await expectRestEntries(advanced, [['test_clock.advance', id]], testKey, false))[0].changes).toEqual({
      frozen_time: ['2025-03-05T09:00:00.000Z', '2025-03-06T09:00:00.000Z'],
      status: ['ready', 'advancing'],
    });
    const clock = () => v1<{ status: string }>(stack, testKey.token, 'GET', '/v1/test_clocks/{id}', `/v1/test_clocks/${id}`);
    await waitUntil(async () => (await clock()).body.status === 'ready', { timeoutMs: 60_000, what: 'the clock ready' });
    const deleted = await v1(stack, testKey.token, 'DELETE', '/v1/test_clocks/{id}', `/v1/test_clocks/${id}`);
    expect((await expectRestEntries(deleted, [['test_clock.delete', id]], testKey, false))[0].changes).toEqual({ deleted: [false, true], archived_accounts: [0, 1] });
  });
});

describe('through the panel, as its signed-in user', () => {
  const byOwner = () => ({ type: 'user', id: owner.id, label: owner.email });

  async function expectPanelEntries(answer: Answer<unknown>, expected: Array<[string, string]>): Promise<AuditEntryJson[]> {
    expect(answer.status).toBeLessThan(300);
    const entries = await entriesOf(answer);
    expect(entries.map((e) => [e.action, e.target.id])).toEqual(expected);
    for (const entry of entries) expect(entry).toMatchObject({ actor: byOwner(), ip: LOOPBACK, request_id: answer.requestId });
    return entries;
  }

  it('accounts, keys, the team and webhooks', async () => {
    const created = await panel<{ data: Array<{ number: number }> }>(stack, cookie, 'POST', '/panel/api/accounts', { count: 1 });
    const number = created.body.data[0].number;
    await expectPanelEntries(created, [['account.create', String(number)]]);
    const assigned = await panel<{ trader: { id: string } }>(stack, cookie, 'PUT', `/panel/api/accounts/${number}/trader`, { name: 'Bo', email: 'bo@example.com' });
    await expectPanelEntries(assigned, [['trader.create', assigned.body.trader.id], ['account.assign', String(number)]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/breach`, { reason: 'panel breach' }), [['account.breach', String(number)]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/reset`), [['account.reset', String(number)]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/archive`), [['account.archive', String(number)]]);

    const newKey = await panel<{ id: string; token: string }>(stack, cookie, 'POST', '/panel/api/keys', { name: 'from panel', scopes: ['accounts:read'] });
    secrets.push(newKey.body.token);
    const [keyCreated] = await expectPanelEntries(newKey, [['api_key.create', newKey.body.id]]);
    expect(keyCreated.changes).toMatchObject({ name: [null, 'from panel'], scopes: [null, ['accounts:read']], mode: [null, 'live'] });
    const limits = await panel(stack, cookie, 'POST', `/panel/api/keys/${newKey.body.id}/limits`, { read: 600, write: null });
    expect((await expectPanelEntries(limits, [['api_key.set_limits', newKey.body.id]]))[0].changes).toEqual({ read_per_min: [null, 600] });
    const rolled = await panel<{ id: string; token: string }>(stack, cookie, 'POST', `/api-keys/${newKey.body.id}/roll`, { previous_expires_in: 60 });
    secrets.push(rolled.body.token);
    const [roll] = await expectPanelEntries(rolled, [['api_key.roll', newKey.body.id], ['api_key.create', rolled.body.id]]);
    expect(roll.changes).toMatchObject({ replaced_by: [null, rolled.body.id] });
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/api-keys/${rolled.body.id}/revoke`), [['api_key.revoke', rolled.body.id]]);

    const member = await panel<{ id: string }>(stack, cookie, 'POST', '/panel/api/team', { email: 'new.member@example.com', password: 'a long enough password', role: 'member' });
    secrets.push('a long enough password');
    expect((await expectPanelEntries(member, [['user.create', member.body.id]]))[0].changes).toEqual({ email: [null, 'new.member@example.com'], role: [null, 'member'] });
    const promoted = await panel(stack, cookie, 'POST', `/panel/api/team/${member.body.id}/role`, { role: 'admin' });
    expect((await expectPanelEntries(promoted, [['user.update', member.body.id]]))[0].changes).toEqual({ role: ['member', 'admin'] });
    await expectPanelEntries(await panel(stack, cookie, 'DELETE', `/panel/api/team/${member.body.id}`), [['user.delete', member.body.id]]);

    const hook = await panel<{ id: string; secret: string }>(stack, cookie, 'POST', '/panel/api/webhooks', { url: 'https://127.0.0.1:9/panel', events: [] });
    secrets.push(hook.body.secret);
    await expectPanelEntries(hook, [['webhook.create', hook.body.id]]);
  });

  it('operations: payouts approved and rejected, a halt, a resumption, a reinstatement, an adjustment; an endpoint edited and recovered', async () => {
    const number = await approvalAccount('panel-payouts');
    const account = String(number);
    const adjusted = await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/adjustments`, { amount: 1000, reason: 'panel credit' });
    expect((await expectPanelEntries(adjusted, [['account.adjust', account]]))[0].changes).toMatchObject({ balance: [50000, 51000], amount: [null, 1000] });
    const [first, second] = [await requestPayout(number, 200), await requestPayout(number, 100)];
    const approved = await panel(stack, cookie, 'POST', `/panel/api/payouts/${first.body.id}/approve`);
    expect((await expectPanelEntries(approved, [['payout.approve', first.body.id]]))[0].changes).toEqual({ status: ['pending', 'approved'], balance: [51000, 50800] });
    const rejected = await panel(stack, cookie, 'POST', `/panel/api/payouts/${second.body.id}/reject`, { reason: 'panel says no' });
    expect((await expectPanelEntries(rejected, [['payout.reject', second.body.id]]))[0].changes).toEqual({ status: ['pending', 'rejected'], reason: [null, 'panel says no'] });

    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/halt`, { reason: 'panel halt' }), [['account.halt', account]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/resume`), [['account.resume', account]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/breach`, { reason: 'panel breach' }), [['account.breach', account]]);
    await expectPanelEntries(await panel(stack, cookie, 'POST', `/panel/api/accounts/${number}/reinstate`, { reason: 'panel reinstatement' }), [['account.reinstate', account]]);

    const hook = await panel<{ id: string; secret: string }>(stack, cookie, 'POST', '/panel/api/webhooks', { url: 'https://127.0.0.1:9/recovered', events: [] });
    secrets.push(hook.body.secret);
    const edited = await panel(stack, cookie, 'PATCH', `/panel/api/webhooks/${hook.body.id}`, { description: 'panel edit' });
    expect((await expectPanelEntries(edited, [['webhook.update', hook.body.id]]))[0].changes).toEqual({ description: [null, 'panel edit'] });
    const test = await panel<{ delivery_id: string }>(stack, cookie, 'POST', `/panel/api/webhooks/${hook.body.id}/test`);
    await failDelivery(test.body.delivery_id);
    const recovered = await panel(stack, cookie, 'POST', `/panel/api/webhooks/${hook.body.id}/recover`, { since: anHourAgo() });
    expect((await expectPanelEntries(recovered, [['webhook.recover', hook.body.id]]))[0].changes).toMatchObject({ redelivered: [0, 1] });
  });
});

describe('through the CLI, as the operator', () => {
  it('organizations, users, keys, accounts and programs', async () => {
    const created = await cli(stack, ['org:create', '--name', 'CLI Firm', '--credits', '5']);
    const id = String(created.id);
    const reader = await cli(stack, ['key:create', '--org', id, '--name', 'reader', '--scopes', 'audit:read']);
    secrets.push(String(reader.token));
    await cli(stack, ['org:set-plan', '--org', id, '--unpaid']);
    await cli(stack, ['org:set-plan', '--org', id, '--paid']);
    await cli(stack, ['org:add-credits', '--org', id, '--credits', '10']);
    const user = await cli(stack, ['user:create', '--org', id, '--email', 'ops@example.com', '--password', 'operator password 1', '--role', 'admin']);
    secrets.push('operator password 1');
    await cli(stack, ['key:set-limits', '--key', String(reader.id), '--read', '100', '--write', '10']);
    const accounts = await cli(stack, ['accounts:create', '--org', id, '--count', '1']);
    await cli(stack, ['programs:create', '--org', id, '--json', JSON.stringify({ name: 'cli-program', initial_balance: 10000, phases: [{ name: 'P', kind: 'evaluation', profit_target_pct: 5, max_daily_loss_pct: 5, max_total_loss_pct: 10 }] })]);

    const entries = (await wholeLog(stack, String(reader.token))).reverse();
    expect(entries.map((e) => [e.action, e.target.id])).toEqual([
      ['organization.create', id],
      ['api_key.create', String(reader.id)],
      ['organization.set_plan', id],
      ['organization.set_plan', id],
      ['organization.add_credits', id],
      ['user.create', String(user.id)],
      ['api_key.set_limits', String(reader.id)],
      ['account.create', String((accounts.accounts as number[])[0])],
      ['program.create', 'cli-program'],
    ]);
    for (const entry of entries) expect(entry).toMatchObject({ actor: { type: 'operator', id: 'cli', label: 'cli' }, ip: null, livemode: true, request_id: expect.any(String) });
    expect(entries.find((e) => e.action === 'organization.add_credits')?.changes).toEqual({ credits: ['5', '15'] });
    expect(entries.filter((e) => e.action === 'organization.set_plan').map((e) => e.changes)).toEqual([{ plan_status: ['paid', 'unpaid'] }, { plan_status: ['unpaid', 'paid'] }]);
    // A dozen CLI processes: each under a second on an idle machine, several on a loaded one.
  }, 180_000);
});

describe('no entry holds a secret', () => {
  it('after every kind of change above, no token, password or webhook secret is anywhere in the three tables', async () => {
    expect(secrets.length).toBeGreaterThan(8);
    const rows = await withDatabase(stack, async (db) => {
      const texts: string[] = [];
      for (const schema of AUDITED_SCHEMAS) {
        const { rows: found } = await db.query<{ row: string }>(`SELECT row_to_json(e)::text AS row FROM ${schema}.audit_entries e`);
        texts.push(...found.map((r) => r.row));
      }
      return texts;
    });
    expect(rows.length).toBeGreaterThan(40);
    const leaks = rows.filter((row) => secrets.some((secret) => row.includes(secret)) || /whsec_|pfx_exec_|password/i.test(row));
    expect(leaks).toEqual([]);
  });
});
