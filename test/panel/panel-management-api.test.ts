import { tradingv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { startStack, type Stack } from '../support/stack';
import { panelClient, type Method } from './panel-client';

const PASSWORD = 'correct horse battery';
// A trader name that would run script if any page inserted it as HTML.
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1"><b>Eve</b>';

type Json = Record<string, unknown>;

describe('the panel API behind the gateway, against every real service', () => {
  let stack: Stack;
  let call: ReturnType<typeof panelClient>;
  let orgId = '';
  const cookies = { owner: '', admin: '', member: '' };
  let accounts: number[] = [];

  beforeAll(async () => {
    stack = await startStack();
    call = panelClient(stack.url);
    orgId = (await stack.createOrg({ name: 'Panel Firm', credits: 20 })).id;
    for (const role of ['owner', 'admin', 'member'] as const) {
      const user = await stack.createUser(orgId, { email: `${role}@panel.example`, password: PASSWORD, role });
      cookies[role] = await stack.panelLogin(user.email, PASSWORD);
    }
    accounts = await stack.createAccounts(orgId, 4);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe('roles', () => {
    // Every call that changes something, reveals a secret or manages the team.
    const managementCalls = (): Array<[Method, string, unknown?]> => {
      const [n] = accounts;
      const id = '6f0c7a52-3a43-4c55-a3c4-6a0d2b1e9f10';
      return [
        ['POST', '/panel/api/accounts', { count: 1 }],
        ['PUT', `/panel/api/accounts/${n}/trader`, { name: 'X', email: 'x@example.com' }],
        ['DELETE', `/panel/api/accounts/${n}/trader`],
        ['POST', `/panel/api/accounts/${n}/archive`],
        ['POST', `/panel/api/accounts/${n}/breach`, { reason: 'test' }],
        ['POST', `/panel/api/accounts/${n}/reset`],
        ['POST', `/panel/api/accounts/${n}/payouts`, {}],
        ['GET', `/panel/api/accounts/${n}/credentials`],
        ['POST', '/panel/api/programs', { name: 'x' }],
        ['PUT', '/panel/api/programs/x', { name: 'x' }],
        ['POST', '/panel/api/programs/x/archive'],
        ['POST', '/panel/api/webhooks', { url: 'https://hooks.example.com/x', events: [] }],
        ['DELETE', `/panel/api/webhooks/${id}`],
        ['POST', `/panel/api/webhooks/${id}/enable`],
        ['POST', `/panel/api/webhooks/${id}/test`],
        ['POST', `/panel/api/webhooks/${id}/rotate-secret`, {}],
        ['PATCH', `/panel/api/webhooks/${id}`, { description: 'x' }],
        ['POST', `/panel/api/webhooks/${id}/recover`, { since: new Date().toISOString() }],
        ['POST', `/api-keys/${id}/roll`, {}],
        ['POST', `/panel/api/webhooks/${id}/deliveries/${id}/retry`],
        ['POST', '/panel/api/keys', { name: 'k', scopes: [] }],
        ['POST', `/api-keys/${id}/revoke`],
        ['POST', '/panel/api/team', { email: 'new@panel.example', password: PASSWORD, role: 'member' }],
        ['POST', `/panel/api/team/${id}/role`, { role: 'owner' }],
        ['DELETE', `/panel/api/team/${id}`],
      ];
    };

    it('refuses a member every management call with 403 forbidden, whatever the UI shows', async () => {
      for (const [method, path, body] of managementCalls()) {
        const res = await call(method, path, { cookie: cookies.member, body });
        expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status: 403, code: 'forbidden' });
      }
      const detail = await call<{ account: Json; trader: unknown }>('GET', `/panel/api/accounts/${accounts[0]}`, { cookie: cookies.member });
      expect(detail.body.account).toMatchObject({ status: 'active', trader_id: null });
    });

    it('lets an admin manage accounts, but only an owner manages the team', async () => {
      for (const [method, path, body] of managementCalls().filter(([, path]) => path.startsWith('/panel/api/team'))) {
        const res = await call(method, path, { cookie: cookies.admin, body });
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
      }
      expect((await call('GET', '/panel/api/team', { cookie: cookies.admin })).status).toBe(200);
    });

    it('refuses cross-site requests before anything happens, even with an owner session', async () => {
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }] as Array<Record<string, string>>) {
        for (const [method, path, body] of managementCalls().slice(0, 6)) {
          const res = await call(method, path, { cookie: cookies.owner, body, headers });
          expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 403, code: 'forbidden' });
        }
      }
      expect((await call('GET', '/panel/api/accounts?limit=200', { cookie: cookies.owner })).body.data).toHaveLength(4);
    });

    it('answers 401 without a session on every panel API route', async () => {
      for (const path of ['/panel/api/accounts', `/panel/api/accounts/${accounts[0]}`, '/panel/api/events', '/panel/api/webhooks', '/panel/api/team', '/panel/api/programs']) {
        expect((await call('GET', path)).status).toBe(401);
      }
    });
  });

  describe('team', () => {
    it('adds a user with an initial password and role, who can then sign in', async () => {
      const added = await call<Json>('POST', '/panel/api/team', { cookie: cookies.owner, body: { email: 'Newbie@Panel.example', password: PASSWORD, role: 'admin' } });
      expect(added.status).toBe(201);
      expect(added.body).toEqual({ id: expect.any(String), email: 'newbie@panel.example', role: 'admin', created_at: expect.any(String) });
      await stack.panelLogin('newbie@panel.example', PASSWORD);
      const again = await call('POST', '/panel/api/team', { cookie: cookies.owner, body: { email: 'newbie@panel.example', password: PASSWORD, role: 'admin' } });
      expect(again.status).toBe(409);
      const bad = await call('POST', '/panel/api/team', { cookie: cookies.owner, body: { email: 'x@panel.example', password: PASSWORD, role: 'boss' } });
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'role' });
      const team = await call<{ data: Json[] }>('GET', '/panel/api/team', { cookie: cookies.member });
      expect(team.body.data.map((u) => u.email)).toEqual(['admin@panel.example', 'member@panel.example', 'newbie@panel.example', 'owner@panel.example']);
    });

    it("applies a demotion on the user's next request and ends a removed user's sessions at once", async () => {
      const user = await stack.createUser(orgId, { email: 'temp@panel.example', password: PASSWORD, role: 'admin' });
      const cookie = await stack.panelLogin(user.email, PASSWORD);
      expect((await call('POST', `/panel/api/accounts/${accounts[3]}/archive`, { cookie: cookies.member })).status).toBe(403);

      const demoted = await call<Json>('POST', `/panel/api/team/${user.id}/role`, { cookie: cookies.owner, body: { role: 'member' } });
      expect(demoted.body).toMatchObject({ id: user.id, role: 'member' });
      expect((await call<{ user: Json }>('GET', '/panel/api/me', { cookie })).body.user.role).toBe('member');
      expect((await call('POST', '/panel/api/keys', { cookie, body: { name: 'k', scopes: [] } })).status).toBe(403);

      const removed = await call('DELETE', `/panel/api/team/${user.id}`, { cookie: cookies.owner });
      expect(removed.body).toEqual({ id: user.id, deleted: true });
      expect((await call('GET', '/panel/api/me', { cookie })).status).toBe(401);
      expect((await call('DELETE', `/panel/api/team/${user.id}`, { cookie: cookies.owner })).status).toBe(404);
    });

    it('never demotes or removes the last owner (409 conflict)', async () => {
      const me = await call<{ user: { id: string } }>('GET', '/panel/api/me', { cookie: cookies.owner });
      const demote = await call('POST', `/panel/api/team/${me.body.user.id}/role`, { cookie: cookies.owner, body: { role: 'admin' } });
      expect(demote.status).toBe(409);
      expect(demote.body.error?.code).toBe('conflict');
      expect((await call('DELETE', `/panel/api/team/${me.body.user.id}`, { cookie: cookies.owner })).status).toBe(409);
      expect((await call('DELETE', '/panel/api/team/not-a-uuid', { cookie: cookies.owner })).status).toBe(404);
    });
  });

  describe('accounts', () => {
    it('assigns a trader whose name is full of HTML and answers it as plain data, the account in its REST shape', async () => {
      const n = accounts[0];
      const assigned = await call<{ account: Json; trader: Json }>('PUT', `/panel/api/accounts/${n}/trader`, {
        cookie: cookies.admin,
        body: { name: HOSTILE_NAME, email: 'Eve@Traders.example' },
      });
      expect(assigned.status).toBe(200);
      expect(assigned.body.trader).toMatchObject({ name: HOSTILE_NAME, email: 'Eve@Traders.example' });
      expect(Object.keys(assigned.body.account)).toEqual([
        'number',
        'status',
        'trader_id',
        'program',
        'currency',
        'initial_balance',
        'balance',
        'equity',
        'peak_equity',
        'created_at',
        'program_version',
        'phase',
        'attempt',
        'previous_account',
        'next_account',
        'livemode',
        'trading_halted',
        'test_clock',
      ]);
      const detail = await call<{ account: Json; trader: Json }>('GET', `/panel/api/accounts/${n}`, { cookie: cookies.member });
      expect(detail.body.trader).toMatchObject({ name: HOSTILE_NAME });
    });

    it('names each holder beside the page and searches by number or trader email', async () => {
      const page = await call<{ data: Json[]; traders: Record<string, Json>; next_cursor: string | null }>('GET', '/panel/api/accounts', { cookie: cookies.member });
      const held = page.body.data.find((a) => a.number === accounts[0]);
      expect(page.body.traders[String(held?.trader_id)]).toMatchObject({ name: HOSTILE_NAME });

      const byNumber = await call<{ data: Json[] }>('GET', `/panel/api/accounts?q=${accounts[1]}`, { cookie: cookies.member });
      expect(byNumber.body.data.map((a) => a.number)).toEqual([accounts[1]]);
      const byEmail = await call<{ data: Json[] }>('GET', '/panel/api/accounts?q=eve%40traders.EXAMPLE', { cookie: cookies.member });
      expect(byEmail.body.data.map((a) => a.number)).toEqual([accounts[0]]);
      expect((await call<{ data: Json[] }>('GET', '/panel/api/accounts?q=nobody%40traders.example', { cookie: cookies.member })).body.data).toEqual([]);
      expect((await call<{ data: Json[] }>('GET', '/panel/api/accounts?q=99999999', { cookie: cookies.member })).body.data).toEqual([]);
      expect((await call('GET', '/panel/api/accounts?q=hello', { cookie: cookies.member })).body.error).toMatchObject({ code: 'invalid_request', param: 'q' });
      expect((await call('GET', '/panel/api/accounts?status=sleeping', { cookie: cookies.member })).body.error).toMatchObject({ param: 'status' });
      expect((await call('GET', '/panel/api/accounts/abc', { cookie: cookies.member })).body.error).toMatchObject({ code: 'invalid_request', param: 'number' });
      expect((await call('GET', '/panel/api/accounts/99999999', { cookie: cookies.member })).status).toBe(404);
    });

    it('shows credentials to managers on request, and unassigns', async () => {
      const creds = await call<Json>('GET', `/panel/api/accounts/${accounts[0]}/credentials`, { cookie: cookies.owner });
      expect(creds.body).toEqual({ login: accounts[0], password: expect.any(String), server: expect.any(String) });
      const unassigned = await call<{ trader: unknown }>('DELETE', `/panel/api/accounts/${accounts[0]}/trader`, { cookie: cookies.owner });
      expect(unassigned.body.trader).toBeNull();
    });

    it('archives an account', async () => {
      const archived = await call<Json>('POST', `/panel/api/accounts/${accounts[3]}/archive`, { cookie: cookies.admin });
      expect(archived.body).toMatchObject({ number: accounts[3], status: 'archived' });
      const filtered = await call<{ data: Json[] }>('GET', '/panel/api/accounts?status=archived', { cookie: cookies.member });
      expect(filtered.body.data.map((a) => a.number)).toEqual([accounts[3]]);
    });
  });

  describe("an account's trading", () => {
    const quote = (bid: number, ask: number) => stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid, ask, time: new Date() } });

    it('lists positions and trades, gives analytics, a bounded equity curve and the terms', async () => {
      const n = String(accounts[1]);
      await quote(1.1, 1.1);
      const { position } = await stack.admin.trading.call.placeOrder({
        organizationId: orgId,
        mode: Mode.MODE_LIVE,
        number: n,
        symbol: 'EURUSD',
        side: tradingv1.Side.SIDE_BUY,
        volume: 1,
        type: tradingv1.OrderType.ORDER_TYPE_MARKET,
      });
      const open = await call<{ data: Json[] }>('GET', `/panel/api/accounts/${n}/positions?status=open`, { cookie: cookies.member });
      expect(open.body.data).toEqual([expect.objectContaining({ id: position?.id, status: 'open', symbol: 'EURUSD', side: 'buy' })]);
      await quote(1.101, 1.101);
      await stack.admin.trading.call.closePosition({ organizationId: orgId, mode: Mode.MODE_LIVE, number: n, positionId: position?.id ?? '' });
      const trades = await call<{ data: Json[]; next_cursor: null }>('GET', `/panel/api/accounts/${n}/trades`, { cookie: cookies.member });
      expect(trades.body).toEqual({ data: [expect.objectContaining({ profit: 100, symbol: 'EURUSD' })], next_cursor: null });

      const analytics = await call<{ headroom: Json }>('GET', `/panel/api/accounts/${n}/analytics`, { cookie: cookies.member });
      expect(analytics.body.headroom).toMatchObject({ daily_loss_remaining: expect.any(Number), total_loss_remaining: expect.any(Number) });
      const equity = await call<{ data: Json[] }>('GET', `/panel/api/accounts/${n}/equity?max_points=10`, { cookie: cookies.member });
      expect(equity.body.data.length).toBeGreaterThan(0);
      expect(equity.body.data.length).toBeLessThanOrEqual(10);
      expect(equity.body.data[equity.body.data.length - 1]).toEqual({ time: expect.any(String), equity: 100_100, balance: 100_100 });
      expect((await call('GET', `/panel/api/accounts/${n}/equity?max_points=lots`, { cookie: cookies.member })).body.error).toMatchObject({ param: 'max_points' });
      expect((await call('GET', `/panel/api/accounts/${n}/equity?from=yesterday`, { cookie: cookies.member })).body.error).toMatchObject({ param: 'from' });
      const terms = await call<Json>('GET', `/panel/api/accounts/${n}/terms`, { cookie: cookies.member });
      expect(terms.body).toMatchObject({ program: 'standard', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_target_pct: 10, breaches: [] });
    });

    it('breaches manually with a reason, and the flags show the evidence', async () => {
      const n = accounts[2];
      expect((await call('POST', `/panel/api/accounts/${n}/breach`, { cookie: cookies.admin, body: { reason: ' ' } })).body.error).toMatchObject({ param: 'reason' });
      const breached = await call<Json>('POST', `/panel/api/accounts/${n}/breach`, { cookie: cookies.admin, body: { reason: 'copy trading across accounts' } });
      expect(breached.body).toMatchObject({ number: n, status: 'breached' });
      const flags = await call<{ data: Json[] }>('GET', `/panel/api/accounts/${n}/flags`, { cookie: cookies.member });
      expect(flags.body.data).toEqual([expect.objectContaining({ rule: 'manual', action: 'breach', reason: expect.stringContaining('copy trading'), evidence: expect.any(Object) })]);
    });
  });

  describe('webhooks and events', () => {
    it('registers an endpoint with its secret shown once, sends a test event, lists and retries its deliveries, enables and deletes it', async () => {
      const bad = await call('POST', '/panel/api/webhooks', { cookie: cookies.admin, body: { url: 'http://hooks.example.com/x', events: [] } });
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
      const created = await call<Json>('POST', '/panel/api/webhooks', { cookie: cookies.admin, body: { url: 'https://127.0.0.1:9/hook', events: ['account.breached'] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ url: 'https://127.0.0.1:9/hook', events: ['account.breached'], status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
      const id = String(created.body.id);
      const list = await call<{ data: Json[] }>('GET', '/panel/api/webhooks', { cookie: cookies.member });
      expect(list.body.data).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
      expect((await call<Json>('GET', `/panel/api/webhooks/${id}`, { cookie: cookies.member })).body).toMatchObject({ id, status: 'enabled' });

      const test = await call<Json>('POST', `/panel/api/webhooks/${id}/test`, { cookie: cookies.admin });
      expect(test.status).toBe(202);
      const deliveries = await call<{ data: Json[] }>('GET', `/panel/api/webhooks/${id}/deliveries`, { cookie: cookies.member });
      expect(deliveries.body.data).toEqual([expect.objectContaining({ id: test.body.delivery_id, event_id: test.body.event_id, status: expect.any(String) })]);
      expect((await call('POST', `/panel/api/webhooks/${id}/deliveries/${String(test.body.delivery_id)}/retry`, { cookie: cookies.admin })).status).toBe(202);
      expect((await call('GET', `/panel/api/webhooks/${id}/deliveries?status=lost`, { cookie: cookies.member })).body.error).toMatchObject({ param: 'status' });

      const rotated = await call<Json>('POST', `/panel/api/webhooks/${id}/rotate-secret`, { cookie: cookies.admin, body: { previous_expires_in: 60 } });
      expect(rotated.body).toEqual({ id, secret: expect.stringMatching(/^whsec_/) });
      expect(rotated.body.secret).not.toBe(created.body.secret);
      expect((await call('POST', `/panel/api/webhooks/${id}/rotate-secret`, { cookie: cookies.admin, body: { previous_expires_in: -1 } })).body.error).toMatchObject({
        param: 'previous_expires_in',
      });
      expect((await call<Json>('POST', `/panel/api/webhooks/${id}/enable`, { cookie: cookies.admin })).body).toMatchObject({ id, status: 'enabled' });
      expect((await call<Json>('DELETE', `/panel/api/webhooks/${id}`, { cookie: cookies.admin })).body).toEqual({ id, deleted: true });
      expect((await call('GET', `/panel/api/webhooks/${id}`, { cookie: cookies.member })).status).toBe(404);
    });

    it('edits an endpoint field by field (the secret kept) and recovers its failed deliveries, naming a bad field', async () => {
      const created = await call<Json>('POST', '/panel/api/webhooks', {
        cookie: cookies.admin,
        body: { url: 'https://127.0.0.1:9/edit', events: ['account.breached'], description: 'risk desk' },
      });
      expect(created.body).toMatchObject({ description: 'risk desk', warnings: expect.any(Array) });
      const id = String(created.body.id);
      const edited = await call<Json>('PATCH', `/panel/api/webhooks/${id}`, { cookie: cookies.admin, body: { url: 'https://127.0.0.1:9/edited', description: null } });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ id, url: 'https://127.0.0.1:9/edited', events: ['account.breached'], description: null, warnings: expect.any(Array) });
      expect(edited.body).not.toHaveProperty('secret');
      const retyped = await call<Json>('PATCH', `/panel/api/webhooks/${id}`, { cookie: cookies.admin, body: { events: [] } });
      expect(retyped.body).toMatchObject({ url: 'https://127.0.0.1:9/edited', events: [], description: null });
      for (const [body, param] of [
        [{ url: 'http://127.0.0.1:9/x' }, 'url'],
        [{ events: ['account.exploded'] }, 'events'],
        [{ description: 'two\nlines' }, 'description'],
        [{ secret: 'whsec_x' }, 'secret'],
      ] as const) {
        const refused = await call('PATCH', `/panel/api/webhooks/${id}`, { cookie: cookies.admin, body });
        expect([refused.status, refused.body.error?.param]).toEqual([400, param]);
      }
      expect((await call('PATCH', `/panel/api/webhooks/${id}`, { cookie: cookies.admin, body: {} })).status).toBe(400);

      const recovered = await call<Json>('POST', `/panel/api/webhooks/${id}/recover`, { cookie: cookies.admin, body: { since: new Date(Date.now() - 3_600_000).toISOString() } });
      expect([recovered.status, recovered.body]).toEqual([202, { redelivered: 0 }]);
      for (const since of [undefined, 'yesterday', new Date(Date.now() + 3_600_000).toISOString(), new Date(Date.now() - 15 * 86_400_000).toISOString()]) {
        const refused = await call('POST', `/panel/api/webhooks/${id}/recover`, { cookie: cookies.admin, body: since === undefined ? {} : { since } });
        expect([since, refused.status, refused.body.error?.param]).toEqual([since, 400, 'since']);
      }
    });

    it('pages the event feed filtered by type', async () => {
      const all = await call<{ data: Json[] }>('GET', '/panel/api/events?limit=200', { cookie: cookies.member });
      expect(all.body.data.length).toBeGreaterThan(4);
      const created = await call<{ data: Json[] }>('GET', '/panel/api/events?type=account.created&limit=200', { cookie: cookies.member });
      expect(created.body.data).toHaveLength(4);
      expect(created.body.data.every((e) => e.type === 'account.created' && typeof e.data === 'object')).toBe(true);
      expect((await call('GET', '/panel/api/events?type=account.exploded', { cookie: cookies.member })).body.error).toMatchObject({ code: 'invalid_request', param: 'type' });
      const meta = await call<{ event_types: string[] }>('GET', '/panel/api/meta', { cookie: cookies.member });
      expect(meta.body.event_types).toContain('account.breached');
    });
  });

  describe('programs, resets and payouts (SPEC 10)', () => {
    it('lists the built-ins, creates a program (managers) and names a bad field by its path', async () => {
      const list = await call<{ data: Array<{ name: string; builtin: boolean }> }>('GET', '/panel/api/programs', { cookie: cookies.member });
      expect(list.status).toBe(200);
      expect(list.body.data.filter((p) => p.builtin).map((p) => p.name)).toEqual(['aggressive', 'standard', 'swing']);
      const body = {
        name: 'panel-two-step',
        initial_balance: 50000,
        phases: [
          { name: 'Phase 1', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10 },
          { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 },
        ],
      };
      const bad = await call('POST', '/panel/api/programs', { cookie: cookies.owner, body: { ...body, phases: [{ ...body.phases[0], profit_target_pct: 0 }] } });
      expect({ status: bad.status, ...bad.body.error }).toMatchObject({ status: 400, code: 'invalid_request', param: 'phases[0].profit_target_pct' });
      const created = await call<{ version: number }>('POST', '/panel/api/programs', { cookie: cookies.owner, body });
      expect([created.status, created.body.version]).toEqual([201, 1]);
      const updated = await call<{ version: number }>('PUT', '/panel/api/programs/panel-two-step', { cookie: cookies.owner, body });
      expect([updated.status, updated.body.version]).toEqual([200, 2]);
      const archived = await call<{ status: string }>('POST', '/panel/api/programs/panel-two-step/archive', { cookie: cookies.owner });
      expect(archived.body.status).toBe('archived');
    });

    it('resets an account for a credit and refuses a payout of an evaluation account saying why', async () => {
      const number = accounts[1];
      const reset = await call<{ attempt: number; status: string }>('POST', `/panel/api/accounts/${number}/reset`, { cookie: cookies.owner, body: {} });
      expect([reset.status, reset.body.attempt, reset.body.status]).toEqual([200, 2, 'active']);
      const payout = await call('POST', `/panel/api/accounts/${number}/payouts`, { cookie: cookies.owner, body: {} });
      expect({ status: payout.status, code: payout.body.error?.code }).toEqual({ status: 409, code: 'payout_not_allowed' });
      expect(payout.body.error?.message).toContain('evaluation phase');
      const list = await call<{ data: unknown[] }>('GET', `/panel/api/accounts/${number}/payouts`, { cookie: cookies.member });
      expect([list.status, list.body.data]).toEqual([200, []]);
    });
  });
});
