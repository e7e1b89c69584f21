/**
 * Issue 13 over HTTP: programs as data (CRUD, validation by path, versions frozen into accounts,
 * built-ins read-only), every answer checked against the OpenAPI document.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

let stack: Stack;
let api: ReturnType<typeof client>;

const phase = (over: Record<string, unknown> = {}) => ({ name: 'Evaluation', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10, ...over });
const program = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  initial_balance: 25000,
  phases: [phase({ name: 'Phase 1' }), phase({ name: 'Phase 2', profit_target_pct: 5 }), { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 }],
  ...over,
});

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  api = client(stack.url, (await stack.createKey(org.id)).token);
});
afterAll(async () => {
  await stack?.stop();
});

describe('programs over REST', () => {
  it('creates (201, version 1), gets, replaces (200, version 2), lists with built-ins and archives', async () => {
    const created = await api.post<{ version: number; builtin: boolean; phases: Array<{ warning_at_pct: number }> }>('/v1/programs', '/v1/programs', { body: program('two-step') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: 1, builtin: false, status: 'active' });
    expect(created.body.phases[0].warning_at_pct).toBe(80);

    const put = await api.put<{ version: number; initial_balance: number }>('/v1/programs/{name}', '/v1/programs/two-step', { body: { ...program('two-step'), initial_balance: 10000 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ version: 2, initial_balance: 10000 });

    const v1 = await api.get<{ version: number; initial_balance: number }>('/v1/programs/{name}', '/v1/programs/two-step?version=1');
    expect(v1.body).toMatchObject({ version: 1, initial_balance: 25000 });

    const list = await api.get<{ data: Array<{ name: string; builtin: boolean; version: number }>; next_cursor: null }>('/v1/programs', '/v1/programs');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p) => [p.name, p.builtin, p.version])).toEqual([
      ['aggressive', true, 1],
      ['standard', true, 1],
      ['swing', true, 1],
      ['two-step', false, 2],
    ]);

    const accounts = await api.post<{ data: Array<Record<string, unknown>> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'two-step' } });
    expect(accounts.status).toBe(201);
    expect(accounts.body.data[0]).toMatchObject({
      program: 'two-step',
      program_version: 2,
      initial_balance: 10000,
      phase: { index: 0, name: 'Phase 1', kind: 'evaluation' },
      attempt: 1,
      previous_account: null,
      next_account: null,
    });
    const listed = await api.get<{ data: Array<Record<string, unknown>> }>('/v1/accounts', '/v1/accounts');
    expect(listed.body.data[0]).toMatchObject({ program_version: 2, phase: { index: 0, name: 'Phase 1', kind: 'evaluation' }, attempt: 1 });

    const archived = await api.post<{ status: string }>('/v1/programs/{name}/archive', '/v1/programs/two-step/archive');
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
    const refused = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'two-step' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
  });

  it('answers a bad field with 400 invalid_request naming its path', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [program('p-1', { phases: [phase(), phase({ name: 'Second', profit_target_pct: undefined })] }), 'phases[1].profit_target_pct'],
      [program('p-2', { phases: [phase({ total_loss_mode: 'sideways' })] }), 'phases[0].total_loss_mode'],
      [program('p-3', { phases: [phase({ consistency_pct: 0 })] }), 'phases[0].consistency_pct'],
      [program('p-4', { phases: [] }), 'phases'],
      [program('P 5'), 'name'],
      [program('p-6', { initial_balance: 'lots' }), 'initial_balance'],
      [program('p-7', { phases: [phase({ name: '' })] }), 'phases[0].name'],
    ];
    for (const [body, param] of cases) {
      const res = await api.post<ErrorBody>('/v1/programs', '/v1/programs', { body });
      expect([res.status, res.body.error.code, res.body.error.param]).toEqual([400, 'invalid_request', param]);
    }
  });

  it('refuses to change a built-in or reuse a name (409 conflict); unknown programs are 404', async () => {
    const put = await api.put<ErrorBody>('/v1/programs/{name}', '/v1/programs/standard', { body: program('standard') });
    expect([put.status, put.body.error.code]).toEqual([409, 'conflict']);
    const taken = await api.post<ErrorBody>('/v1/programs', '/v1/programs', { body: program('swing') });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'conflict']);
    const missing = await api.get<ErrorBody>('/v1/programs/{name}', '/v1/programs/nothing-here');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    const badVersion = await api.get<ErrorBody>('/v1/programs/{name}', '/v1/programs/standard?version=0');
    expect([badVersion.status, badVersion.body.error.param]).toEqual([400, 'version']);
  });
});

describe('the lifecycle over REST', () => {
  it('resets a breached attempt for one credit (402 with none left, nothing changed) and revokes executor sessions', async () => {
    const org = await stack.createOrg({ credits: 2 });
    const own = client(stack.url, (await stack.createKey(org.id)).token);
    const [number] = (await stack.createAccounts(org.id, 1)) as [number];
    const creds = await own.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
    const session = await own.post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: number, password: creds.body.password } });
    expect(session.status).toBe(201);
    await own.post('/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { body: { reason: 'test' } });

    const reset = await own.post<Record<string, unknown>>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ status: 'active', attempt: 2, balance: 100000, equity: 100000 });
    const revoked = await client(stack.url, session.body.token).get<ErrorBody>('/v1/executor/account', '/v1/executor/account');
    expect([revoked.status, revoked.body.error.code]).toEqual([401, 'invalid_session']);

    const broke = await own.post<ErrorBody>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`);
    expect([broke.status, broke.body.error.code]).toEqual([402, 'insufficient_credits']);
    const unchanged = await own.get<{ attempt: number }>('/v1/accounts/{number}', `/v1/accounts/${number}`);
    expect(unchanged.body.attempt).toBe(2);

    const events = await own.get<{ data: Array<{ type: string; data: Record<string, unknown> }> }>('/v1/events', '/v1/events?type=account.reset');
    expect(events.body.data).toEqual([expect.objectContaining({ type: 'account.reset', data: expect.objectContaining({ account: number, attempt: 2 }) })]);
  });

  it('pays out a funded account (201), lists payouts, and refuses with 409 payout_not_allowed saying why', async () => {
    await api.post('/v1/programs', '/v1/programs', {
      body: { name: 'instant-funded', initial_balance: 50000, phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 75 }] },
    });
    const created = await api.post<{ data: Array<{ number: number; phase: { kind: string } }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'instant-funded' } });
    const number = created.body.data[0].number;
    expect(created.body.data[0].phase.kind).toBe('funded');
    const none = await api.post<ErrorBody>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`);
    expect([none.status, none.body.error.code]).toEqual([409, 'payout_not_allowed']);
    expect(none.body.error.message).toContain('no closed profit');

    await stack.admin.trading.call.publishQuote({ quote: { symbol: 'XAUUSD', bid: 2300, ask: 2300 } });
    const open = await api.post<{ id: string }>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'XAUUSD', side: 'buy', volume: 1 } });
    await stack.admin.trading.call.publishQuote({ quote: { symbol: 'XAUUSD', bid: 2310, ask: 2310 } });
    await api.post('/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/${open.body.id}/close`);

    const bad = await api.post<ErrorBody>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`, { body: { amount: -5 } });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'amount']);
    const payout = await api.post<Record<string, unknown>>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`, { body: { amount: 600 } });
    expect(payout.status).toBe(201);
    expect(payout.body).toMatchObject({ account: number, amount: 600, profit_split_pct: 75, trader_share: 450, firm_share: 150, balance_after: 50400 });
    const list = await api.get<{ data: unknown[] }>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`);
    expect(list.body.data).toHaveLength(1);
    const tooMuch = await api.post<ErrorBody>('/v1/accounts/{number}/payouts', `/v1/accounts/${number}/payouts`, { body: { amount: 401 } });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([409, 'payout_not_allowed']);
    const reset = await api.post<ErrorBody>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`);
    expect([reset.status, reset.body.error.code]).toEqual([409, 'conflict']);
  });

  it('accepts the new event types in webhook registration and the feed filter', async () => {
    const hook = await api.post<{ events: string[] }>('/v1/webhooks', '/v1/webhooks', {
      body: { url: 'https://example.com/hook', events: ['account.warning', 'account.reset', 'payout.created'] },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.events).toEqual(['account.warning', 'account.reset', 'payout.created']);
    const feed = await api.get('/v1/events', '/v1/events?type=account.warning');
    expect(feed.status).toBe(200);
  });
});

describe('Idempotency-Key on the lifecycle writes', () => {
  it('a retried program creation and a retried reset answer the first answer, with one effect', async () => {
    const headers = { 'idempotency-key': `prog-${Date.now()}` };
    const first = await api.post<{ version: number }>('/v1/programs', '/v1/programs', { body: program('idem-prog'), headers });
    const again = await api.post<{ version: number }>('/v1/programs', '/v1/programs', { body: program('idem-prog'), headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.text).toBe(first.text);

    const org = await stack.createOrg({ credits: 5 });
    const own = client(stack.url, (await stack.createKey(org.id)).token);
    const [number] = (await stack.createAccounts(org.id, 1)) as [number];
    const resetHeaders = { 'idempotency-key': `reset-${number}` };
    const r1 = await own.post<{ attempt: number }>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`, { headers: resetHeaders });
    const r2 = await own.post<{ attempt: number }>('/v1/accounts/{number}/reset', `/v1/accounts/${number}/reset`, { headers: resetHeaders });
    expect([r1.status, r1.body.attempt, r2.status, r2.body.attempt]).toEqual([200, 2, 200, 2]);
    const { credits } = (await stack.admin.auth.call.getOrganization({ organizationId: org.id })).organization ?? { credits: '?' };
    // 5 - 1 account - 1 reset.
    expect(Number(credits)).toBe(3);
  });
});
