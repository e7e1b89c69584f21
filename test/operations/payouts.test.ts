/**
 * SPEC 14 over HTTP: payouts a firm approves and the KYC gate. A funded phase with
 * payout_requires_approval makes a payout request pending (its amount reserved, the balance
 * unchanged); approve, reject and mark paid move it on, each once, each from the right state only;
 * two approvals racing make one. requires_kyc pays out only to a verified trader. Every answer is
 * checked against the OpenAPI document.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';

interface Payout {
  id: string;
  account: number;
  amount: number;
  status: string;
  balance_after: number | null;
  requested_at: string;
  decided_at: string | null;
  decided_by: { type: string; id: string } | null;
  reason: string | null;
  reference: string | null;
  paid_at: string | null;
  livemode: boolean;
}
interface Account {
  number: number;
  balance: number;
  equity: number;
  trader_id: string | null;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface Event {
  type: string;
  data: Record<string, unknown>;
}

const OPERATOR_SCOPES = ['accounts:read', 'accounts:write', 'trading:write', 'payouts:write'];

let stack: Stack;
let orgId: string;
let api: ReturnType<typeof client>;
let keyId: string;

const funded = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  initial_balance: 50000,
  phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 80, ...extra }],
});

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 100 })).id;
  const key = await stack.createKey(orgId, OPERATOR_SCOPES);
  keyId = key.id;
  api = client(stack.url, key.token);
  for (const program of [funded('approved-payouts', { payout_requires_approval: true }), funded('kyc-payouts', { requires_kyc: true }), funded('instant-payouts')]) {
    expect((await api.post('/v1/programs', '/v1/programs', { body: program })).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** A funded account of the program with `profit` of closed profit (a balance adjustment books it). */
async function fundedAccount(program: string, profit: number, own = api): Promise<number> {
  const created = await own.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program } });
  expect(created.status).toBe(201);
  const number = created.body.data[0].number;
  const credit = await own.post('/v1/accounts/{number}/adjustments', `/v1/accounts/${number}/adjustments`, { body: { amount: profit, reason: 'profit for the test' } });
  expect(credit.status).toBe(201);
  return number;
}

const account = async (number: number) => (await api.get<Account>('/v1/accounts/{number}', `/v1/accounts/${number}`)).body;
const requestPayout = (number: number, amount?: number, own = api) =>
  own.post<Payout & ErrorBody>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`, { body: amount === undefined ? {} : { amount } });
const payoutAction = (id: string, action: 'approve' | 'reject' | 'mark-paid', body?: unknown, own = api) =>
  own.post<Payout & ErrorBody>(`/v1/payouts/{id}/${action}`, `/v1/payouts/${id}/${action}`, body === undefined ? {} : { body });
async function events(type: string): Promise<Event[]> {
  return (await api.get<Page<Event>>('/v1/events', `/v1/events?type=${type}&limit=200`)).body.data;
}

describe('payout approval', () => {
  it('without approval a payout stands as before (201, balance drops) and says status approved', async () => {
    const number = await fundedAccount('instant-payouts', 1000);
    const payout = await requestPayout(number, 400);
    expect(payout.status).toBe(201);
    expect(payout.body).toMatchObject({ status: 'approved', amount: 400, balance_after: 50600, decided_by: null, reason: null, reference: null, paid_at: null });
    expect(payout.body.decided_at).toBe(payout.body.requested_at);
    expect((await account(number)).balance).toBe(50600);
  });

  it('with approval: pending and reserved, balance unchanged; a second request may claim only what is left; approve drops the balance; mark paid', async () => {
    const number = await fundedAccount('approved-payouts', 1000);
    const first = await requestPayout(number, 600);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'pending', amount: 600, balance_after: null, decided_at: null, decided_by: null });
    expect((await account(number)).balance).toBe(51000);
    expect(await events('payout.requested')).toEqual(expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ payout_id: first.body.id, amount: 600 }) })]));

    const tooMuch = await requestPayout(number, 400.01);
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([409, 'payout_not_allowed']);
    expect(tooMuch.body.error.message).toContain('pending');
    const rest = await requestPayout(number);
    expect([rest.status, rest.body.status, rest.body.amount]).toEqual([201, 'pending', 400]);
    const none = await requestPayout(number, 0.01);
    expect([none.status, none.body.error.code]).toEqual([409, 'payout_not_allowed']);

    const approved = await payoutAction(first.body.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', balance_after: 50400, decided_by: { type: 'api_key', id: keyId } });
    expect(approved.body.decided_at).not.toBeNull();
    expect((await account(number)).balance).toBe(50400);
    expect(await events('payout.approved')).toEqual(expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ payout_id: first.body.id, balance_after: 50400 }) })]));

    // Wrong states: 409 conflict, nothing changed.
    const again = await payoutAction(first.body.id, 'approve');
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
    const rejectApproved = await payoutAction(first.body.id, 'reject', { reason: 'late' });
    expect([rejectApproved.status, rejectApproved.body.error.code]).toEqual([409, 'conflict']);
    const payPending = await payoutAction(rest.body.id, 'mark-paid', { reference: 'WIRE-1' });
    expect([payPending.status, payPending.body.error.code]).toEqual([409, 'conflict']);
    expect((await api.get<Payout>('/v1/payouts/{id}', `/v1/payouts/${rest.body.id}`)).body.status).toBe('pending');
    expect((await account(number)).balance).toBe(50400);

    const noReference = await payoutAction(first.body.id, 'mark-paid', {});
    expect([noReference.status, noReference.body.error.param]).toEqual([400, 'reference']);
    const paid = await payoutAction(first.body.id, 'mark-paid', { reference: 'WIRE-2026-0117' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', reference: 'WIRE-2026-0117', balance_after: 50400 });
    expect(paid.body.paid_at).not.toBeNull();
    expect(await events('payout.paid')).toEqual(expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ payout_id: first.body.id, reference: 'WIRE-2026-0117' }) })]));
  });

  it('reject needs a reason and releases the reservation', async () => {
    const number = await fundedAccount('approved-payouts', 500);
    const pending = await requestPayout(number);
    expect(pending.body).toMatchObject({ status: 'pending', amount: 500 });
    const blocked = await requestPayout(number, 1);
    expect(blocked.body.error.code).toBe('payout_not_allowed');
    const noReason = await payoutAction(pending.body.id, 'reject', {});
    expect([noReason.status, noReason.body.error.param]).toEqual([400, 'reason']);
    const blank = await payoutAction(pending.body.id, 'reject', { reason: '   ' });
    expect([blank.status, blank.body.error.param]).toEqual([400, 'reason']);

    const rejected = await payoutAction(pending.body.id, 'reject', { reason: 'profit from a pricing error' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'profit from a pricing error', balance_after: null, decided_by: { type: 'api_key', id: keyId } });
    expect((await account(number)).balance).toBe(50500);
    expect(await events('payout.rejected')).toEqual(expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ payout_id: pending.body.id }) })]));
    const approveRejected = await payoutAction(pending.body.id, 'approve');
    expect([approveRejected.status, approveRejected.body.error.code]).toEqual([409, 'conflict']);
    // The reservation is gone: the whole profit may be asked for again.
    expect((await requestPayout(number)).body).toMatchObject({ status: 'pending', amount: 500 });
  });

  it('two concurrent approvals of one payout make one approval', async () => {
    const number = await fundedAccount('approved-payouts', 800);
    const pending = await requestPayout(number, 800);
    const answers = await Promise.all(Array.from({ length: 6 }, () => payoutAction(pending.body.id, 'approve')));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error.code).toBe('conflict');
    expect((await account(number)).balance).toBe(50000);
    const approvedEvents = (await events('payout.approved')).filter((e) => e.data.payout_id === pending.body.id);
    expect(approvedEvents).toHaveLength(1);
  });

  it('a retried approval with the same Idempotency-Key answers the first answer, with one effect', async () => {
    const number = await fundedAccount('approved-payouts', 250);
    const pending = await requestPayout(number);
    const headers = { 'idempotency-key': `approve-${pending.body.id}` };
    const first = await api.post<Payout>('/v1/payouts/{id}/approve', `/v1/payouts/${pending.body.id}/approve`, { headers });
    const retry = await api.post<Payout>('/v1/payouts/{id}/approve', `/v1/payouts/${pending.body.id}/approve`, { headers });
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.text).toBe(first.text);
    expect((await account(number)).balance).toBe(50000);
    expect((await events('payout.approved')).filter((e) => e.data.payout_id === pending.body.id)).toHaveLength(1);
  });

  it('approving re-checks that the account can still pay', async () => {
    const number = await fundedAccount('approved-payouts', 300);
    const pending = await requestPayout(number, 300);
    // A debit after the request: paying now would take the balance below the initial balance.
    await api.post('/v1/accounts/{number}/adjustments', `/v1/accounts/${number}/adjustments`, { body: { amount: -100, reason: 'fee correction' } });
    const refused = await payoutAction(pending.body.id, 'approve');
    expect([refused.status, refused.body.error.code]).toEqual([409, 'payout_not_allowed']);
    expect(refused.body.error.message).toContain('initial balance');
    expect((await api.get<Payout>('/v1/payouts/{id}', `/v1/payouts/${pending.body.id}`)).body.status).toBe('pending');
    expect((await account(number)).balance).toBe(50200);
  });

  it("lists the organization's payouts, filtered by status and account, keyset paged", async () => {
    const number = await fundedAccount('approved-payouts', 900);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await requestPayout(number, 100)).body.id);
    const seen: Payout[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page<Payout> } = await api.get<Page<Payout>>('/v1/payouts', `/v1/payouts?account=${number}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.map((p) => p.id)).toEqual(ids);
    const pending = (await api.get<Page<Payout>>('/v1/payouts', '/v1/payouts?status=pending&limit=200')).body.data;
    expect(pending.every((p) => p.status === 'pending')).toBe(true);
    expect(pending.map((p) => p.id)).toEqual(expect.arrayContaining(ids));
    const bad = await api.get<ErrorBody>('/v1/payouts', '/v1/payouts?status=sent');
    expect([bad.status, bad.body.error.param]).toEqual([400, 'status']);
    const badAccount = await api.get<ErrorBody>('/v1/payouts', '/v1/payouts?account=abc');
    expect([badAccount.status, badAccount.body.error.param]).toEqual([400, 'account']);
    const otherList = await api.get<ErrorBody>('/v1/payouts', `/v1/payouts?status=pending&cursor=${(await api.get<Page<Payout>>('/v1/payouts', `/v1/payouts?account=${number}&limit=1`)).body.next_cursor}`);
    expect([otherList.status, otherList.body.error.code]).toEqual([400, 'invalid_cursor']);
    const unknown = await api.get<ErrorBody>('/v1/payouts/{id}', '/v1/payouts/6f0c7a52-3a43-4c55-a3c4-6a0d2b1e9f10');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });

  it('needs payouts:write to decide (403 missing_scope naming it), accounts:read to list', async () => {
    const number = await fundedAccount('approved-payouts', 100);
    const pending = await requestPayout(number);
    const writer = client(stack.url, (await stack.createKey(orgId, ['accounts:read', 'accounts:write'])).token);
    for (const [action, body] of [['approve', undefined], ['reject', { reason: 'x' }], ['mark-paid', { reference: 'x' }]] as const) {
      const res = await payoutAction(pending.body.id, action, body, writer);
      expect([res.status, res.body.error.code]).toEqual([403, 'missing_scope']);
      expect(res.body.error.message).toContain('payouts:write');
    }
    const decider = client(stack.url, (await stack.createKey(orgId, ['payouts:write'])).token);
    const list = await decider.get<ErrorBody>('/v1/payouts');
    expect([list.status, list.body.error.code]).toEqual([403, 'missing_scope']);
    expect(list.body.error.message).toContain('accounts:read');
    expect((await payoutAction(pending.body.id, 'approve', undefined, decider)).status).toBe(200);
  });

  it("another organization's or the other mode's payout is not_found, and never listed", async () => {
    const number = await fundedAccount('approved-payouts', 100);
    const pending = await requestPayout(number);
    const other = client(stack.url, (await stack.createKey((await stack.createOrg()).id, OPERATOR_SCOPES)).token);
    const testKey = client(stack.url, (await stack.createKey(orgId, OPERATOR_SCOPES, 'sandbox', { mode: 'test' })).token);
    for (const outsider of [other, testKey]) {
      const get = await outsider.get<ErrorBody>('/v1/payouts/{id}', `/v1/payouts/${pending.body.id}`);
      expect([get.status, get.body.error.code]).toEqual([404, 'not_found']);
      const approve = await payoutAction(pending.body.id, 'approve', undefined, outsider);
      expect([approve.status, approve.body.error.code]).toEqual([404, 'not_found']);
      const list = await outsider.get<Page<Payout>>('/v1/payouts', '/v1/payouts?limit=200');
      expect(list.body.data.map((p) => p.id)).not.toContain(pending.body.id);
    }
    // A test account's payout lives in test mode.
    expect((await testKey.post('/v1/programs', '/v1/programs', { body: funded('approved-payouts', { payout_requires_approval: true }) })).status).toBe(201);
    const testNumber = await fundedAccount('approved-payouts', 200, testKey);
    const testPayout = await requestPayout(testNumber, undefined, testKey);
    expect(testPayout.body).toMatchObject({ status: 'pending', livemode: false });
    const liveGet = await api.get<ErrorBody>('/v1/payouts/{id}', `/v1/payouts/${testPayout.body.id}`);
    expect(liveGet.status).toBe(404);
    expect((await payoutAction(testPayout.body.id, 'approve', undefined, testKey)).body).toMatchObject({ status: 'approved', livemode: false });
    expect((await api.get<Page<Payout>>('/v1/payouts', '/v1/payouts?limit=200')).body.data.every((p) => p.livemode)).toBe(true);
  });
});

describe('the KYC gate', () => {
  it('a requires_kyc program pays out only to a verified trader; the refusal names KYC', async () => {
    const number = await fundedAccount('kyc-payouts', 700);
    const unassigned = await requestPayout(number);
    expect([unassigned.status, unassigned.body.error.code]).toEqual([409, 'payout_not_allowed']);
    expect(unassigned.body.error.message).toContain('KYC');

    const assigned = await api.put<{ trader: { id: string; kyc_status: string; kyc_reference: string | null } }>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, {
      body: { name: 'Kay Trader', email: `kay-${number}@example.com` },
    });
    const trader = assigned.body.trader;
    expect(trader).toMatchObject({ kyc_status: 'unverified', kyc_reference: null });
    const unverified = await requestPayout(number);
    expect(unverified.body.error.message).toMatch(/KYC.*unverified/);

    const kyc = (status: string, reference?: string) =>
      api.post<{ kyc_status: string; kyc_reference: string | null } & ErrorBody>('/v1/traders/{id}/kyc', `/v1/traders/${trader.id}/kyc`, { body: reference ? { status, reference } : { status } });
    const pending = await kyc('pending', 'KYC-1');
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ kyc_status: 'pending', kyc_reference: 'KYC-1' });
    expect((await requestPayout(number)).body.error.message).toMatch(/KYC.*pending/);
    const bad = await kyc('approved');
    expect([bad.status, bad.body.error.param]).toEqual([400, 'status']);
    expect((await kyc('verified', 'KYC-2')).body).toMatchObject({ kyc_status: 'verified', kyc_reference: 'KYC-2' });
    expect((await api.get<{ kyc_status: string }>('/v1/traders/{id}', `/v1/traders/${trader.id}`)).body.kyc_status).toBe('verified');

    const payout = await requestPayout(number, 200);
    expect([payout.status, payout.body.status]).toEqual([201, 'approved']);
    expect((await kyc('rejected')).body).toMatchObject({ kyc_status: 'rejected', kyc_reference: null });
    expect((await requestPayout(number)).body.error.message).toMatch(/KYC.*rejected/);

    const missing = await api.post<ErrorBody>('/v1/traders/{id}/kyc', '/v1/traders/6f0c7a52-3a43-4c55-a3c4-6a0d2b1e9f10/kyc', { body: { status: 'verified' } });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });

  it('payout fields are for funded phases only and are versioned like any other field', async () => {
    const evaluation = await api.post<ErrorBody>('/v1/programs', '/v1/programs', {
      body: { name: 'eval-kyc', initial_balance: 10000, phases: [{ name: 'P1', kind: 'evaluation', profit_target_pct: 5, max_daily_loss_pct: 5, max_total_loss_pct: 10, requires_kyc: true }] },
    });
    expect([evaluation.status, evaluation.body.error.param]).toEqual([400, 'phases[0].requires_kyc']);
    const notBoolean = await api.post<ErrorBody>('/v1/programs', '/v1/programs', { body: funded('bad-flag', { payout_requires_approval: 'yes' }) });
    expect([notBoolean.status, notBoolean.body.error.param]).toEqual([400, 'phases[0].payout_requires_approval']);
    const program = await api.get<{ phases: Array<Record<string, unknown>> }>('/v1/programs/{name}', '/v1/programs/approved-payouts');
    expect(program.body.phases[0]).toMatchObject({ payout_requires_approval: true, requires_kyc: false });
    const standard = await api.get<{ phases: Array<Record<string, unknown>> }>('/v1/programs/{name}', '/v1/programs/standard');
    expect(standard.body.phases[0]).toMatchObject({ payout_requires_approval: false, requires_kyc: false });
  });
});
