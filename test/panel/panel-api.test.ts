import { request } from 'undici';
import { authv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { createPanelClients, type PanelClients } from '../../services/panel/src/clients';
import { logSink, startServices, type TestServices } from './services';

type Json = Record<string, unknown> & { error?: { code: string; message: string } };
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
}

describe('the panel JSON API against the real auth and accounts services', () => {
  let services: TestServices;
  let base: string;
  // A typed gRPC client to seed organizations and users, as an operator would with the CLI.
  let clients: PanelClients;
  const orgA = { id: '', ownerCookie: '', adminCookie: '', memberCookie: '' };
  let foreignKeyId = '';
  const logs = logSink();
  const secretsSeen: string[] = ['correct horse battery'];

  async function call(method: 'GET' | 'POST', path: string, opts: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.cookie) headers.cookie = opts.cookie;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await request(`${base}${path}`, { method, headers, body });
    return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as Json };
  }

  function sessionCookie(answer: Answer): string {
    const raw = answer.headers['set-cookie'];
    const line = (Array.isArray(raw) ? raw : [raw ?? '']).find((c) => c.startsWith('pd_session='));
    if (!line) throw new Error('no session cookie set');
    return line.split(';')[0];
  }

  async function createUser(organizationId: string, email: string, role: authv1.Role): Promise<void> {
    await clients.auth.createUser({ organizationId, email, password: 'correct horse battery', role });
  }

  async function login(email: string): Promise<string> {
    const res = await call('POST', '/panel/api/login', { body: { email, password: 'correct horse battery' } });
    expect(res.status).toBe(200);
    const cookie = sessionCookie(res);
    secretsSeen.push(cookie.slice('pd_session='.length));
    return cookie;
  }

  beforeAll(async () => {
    services = await startServices({ panel: true, logs });
    base = services.panelUrl ?? '';
    const { AUTH_GRPC_ADDRESS, ACCOUNTS_GRPC_ADDRESS } = services.clientEnv;
    clients = createPanelClients({ auth: AUTH_GRPC_ADDRESS, accounts: ACCOUNTS_GRPC_ADDRESS, webhooks: '127.0.0.1:1' }, 5000);

    const a = await clients.auth.createOrganization({ name: 'Firm A', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '3' });
    orgA.id = a.organization?.id ?? '';
    await createUser(orgA.id, 'owner@a.example', authv1.Role.ROLE_OWNER);
    await createUser(orgA.id, 'admin@a.example', authv1.Role.ROLE_ADMIN);
    await createUser(orgA.id, 'member@a.example', authv1.Role.ROLE_MEMBER);
    orgA.ownerCookie = await login('owner@a.example');
    orgA.adminCookie = await login('admin@a.example');
    orgA.memberCookie = await login('member@a.example');

    const b = await clients.auth.createOrganization({ name: 'Firm B', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '0' });
    const key = await clients.auth.createApiKey({ organizationId: b.organization?.id ?? '', mode: Mode.MODE_LIVE, name: 'b key', scopes: [] });
    foreignKeyId = key.apiKey?.id ?? '';
  });

  afterAll(async () => {
    clients?.close();
    await services?.stop();
  });

  describe('login', () => {
    it('signs a user in with an HttpOnly, SameSite=Strict session cookie', async () => {
      const res = await call('POST', '/panel/api/login', { body: { email: 'Owner@A.example', password: 'correct horse battery' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user: { id: expect.any(String), email: 'owner@a.example', role: 'owner', organization_id: orgA.id } });
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^pd_session=[^;]+;/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/);
    });

    it('marks the cookie Secure when the trusted proxy says the browser used HTTPS', async () => {
      const res = await call('POST', '/panel/api/login', {
        body: { email: 'owner@a.example', password: 'correct horse battery' },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      });
      expect(res.status).toBe(200);
      expect(String(res.headers['set-cookie'])).toMatch(/Secure/);
    });

    it('answers a wrong password and an unknown email with the same 401 invalid_credentials', async () => {
      const wrong = await call('POST', '/panel/api/login', { body: { email: 'admin@a.example', password: 'nope nope nope' } });
      const unknown = await call('POST', '/panel/api/login', { body: { email: 'ghost@a.example', password: 'nope nope nope' } });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual({ error: { code: 'invalid_credentials', message: expect.any(String) } });
      expect(unknown.body).toEqual(wrong.body);
      expect(wrong.headers['set-cookie']).toBeUndefined();
    });

    it('limits repeated failures for one email with 429 rate_limited and Retry-After', async () => {
      await createUser(orgA.id, 'target@a.example', authv1.Role.ROLE_MEMBER);
      let last: Answer | undefined;
      for (let i = 0; i < 8; i += 1) {
        last = await call('POST', '/panel/api/login', { body: { email: 'target@a.example', password: `guess ${i}` } });
        if (last.status === 429) break;
      }
      expect(last?.status).toBe(429);
      expect(last?.body.error?.code).toBe('rate_limited');
      expect(Number(last?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('tells who is signed in', async () => {
      const res = await call('GET', '/panel/api/me', { cookie: orgA.memberCookie });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ user: { email: 'member@a.example', role: 'member', organization_id: orgA.id } });
    });
  });

  describe('API keys', () => {
    let createdKey: { id: string; token: string; prefix: string };

    it('lets an owner create a key and shows its token once', async () => {
      const res = await call('POST', '/panel/api/keys', { cookie: orgA.ownerCookie, body: { name: 'shop', scopes: ['accounts:read', 'accounts:write'] } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        token: expect.stringMatching(/^pfx_live_[A-Za-z0-9]{40}$/),
        prefix: expect.any(String),
        name: 'shop',
        scopes: ['accounts:read', 'accounts:write'],
        mode: 'live',
        expires_at: null,
      });
      createdKey = res.body as typeof createdKey;
      secretsSeen.push(createdKey.token);
      expect(createdKey.prefix).toBe(createdKey.token.slice(0, 17));

      const list = await call('GET', '/panel/api/keys', { cookie: orgA.memberCookie });
      expect(list.status).toBe(200);
      const listed = (list.body.data as Array<Record<string, unknown>>).find((k) => k.id === createdKey.id);
      expect(listed).toEqual({
        id: createdKey.id,
        prefix: createdKey.prefix,
        name: 'shop',
        scopes: ['accounts:read', 'accounts:write'],
        mode: 'live',
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
        expires_at: null,
        limits: { read: null, write: null },
      });
      expect(JSON.stringify(list.body)).not.toContain(createdKey.token);
      expect(list.body).toHaveProperty('next_cursor');
    });

    it('refuses unknown scopes and a missing name with 400 invalid_request', async () => {
      const badScope = await call('POST', '/panel/api/keys', { cookie: orgA.ownerCookie, body: { name: 'x', scopes: ['root'] } });
      expect(badScope.status).toBe(400);
      expect(badScope.body.error?.code).toBe('invalid_request');
      const noName = await call('POST', '/panel/api/keys', { cookie: orgA.ownerCookie, body: { scopes: [] } });
      expect(noName.status).toBe(400);
    });

    it('does not let a member create or revoke keys', async () => {
      const create = await call('POST', '/panel/api/keys', { cookie: orgA.memberCookie, body: { name: 'x', scopes: [] } });
      expect(create.status).toBe(403);
      expect(create.body.error?.code).toBe('forbidden');
      const revoke = await call('POST', `/api-keys/${createdKey.id}/revoke`, { cookie: orgA.memberCookie });
      expect(revoke.status).toBe(403);
      expect(revoke.body.error?.code).toBe('forbidden');
    });

    it('does not take a bearer API key for a session', async () => {
      const res = await call('POST', `/api-keys/${createdKey.id}/revoke`, { headers: { authorization: `Bearer ${createdKey.token}` } });
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('unauthorized');
      const forged = await call('POST', `/api-keys/${createdKey.id}/revoke`, { cookie: 'pd_session=pds_forged' });
      expect(forged.status).toBe(401);
      expect(forged.body.error?.code).toBe('unauthorized');
    });

    it('lets an admin revoke a key; revoking again answers the first revoked_at', async () => {
      const first = await call('POST', `/api-keys/${createdKey.id}/revoke`, { cookie: orgA.adminCookie });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: createdKey.id, prefix: createdKey.prefix, name: 'shop', scopes: ['accounts:read', 'accounts:write'], mode: 'live', revoked_at: expect.any(String) });
      const again = await call('POST', `/api-keys/${createdKey.id}/revoke`, { cookie: orgA.ownerCookie });
      expect(again.status).toBe(200);
      expect(again.body.revoked_at).toBe(first.body.revoked_at);
    });

    it('answers 404 for another organization\'s key and for unknown ids', async () => {
      for (const id of [foreignKeyId, '6c1f7c8a-1b2c-4d5e-8f90-123456789abc', 'not-a-key']) {
        const res = await call('POST', `/api-keys/${id}/revoke`, { cookie: orgA.ownerCookie });
        expect(res.status).toBe(404);
        expect(res.body.error?.code).toBe('not_found');
      }
    });
  });

  describe('accounts', () => {
    it('creates accounts in bulk and lists them page by page', async () => {
      const created = await call('POST', '/panel/api/accounts', { cookie: orgA.adminCookie, body: { count: 2, initial_balance: 50000 } });
      expect(created.status).toBe(201);
      const data = created.body.data as Array<Record<string, unknown>>;
      expect(data).toHaveLength(2);
      expect(data[0]).toEqual({
        number: expect.any(Number),
        status: 'active',
        trader_id: null,
        program: 'standard',
        currency: expect.any(String),
        initial_balance: 50000,
        balance: 50000,
        equity: 50000,
        peak_equity: 50000,
        created_at: expect.any(String),
        program_version: 1,
        phase: { index: 0, name: 'evaluation', kind: 'evaluation' },
        attempt: 1,
        previous_account: null,
        next_account: null,
        livemode: true,
        trading_halted: false,
      });

      const first = await call('GET', '/panel/api/accounts?limit=1', { cookie: orgA.memberCookie });
      expect(first.status).toBe(200);
      expect(first.body.data).toHaveLength(1);
      expect(typeof first.body.next_cursor).toBe('string');
      const second = await call('GET', `/panel/api/accounts?limit=1&cursor=${encodeURIComponent(String(first.body.next_cursor))}`, { cookie: orgA.memberCookie });
      expect(second.status).toBe(200);
      const numbers = [...(first.body.data as Array<{ number: number }>), ...(second.body.data as Array<{ number: number }>)].map((a) => a.number);
      expect(new Set(numbers).size).toBe(2);
    });

    it('refuses to spend credits the organization does not have (402 insufficient_credits)', async () => {
      const res = await call('POST', '/panel/api/accounts', { cookie: orgA.ownerCookie, body: { count: 5 } });
      expect(res.status).toBe(402);
      expect(res.body.error?.code).toBe('insufficient_credits');
    });

    it('validates count and limit', async () => {
      for (const body of [{ count: 0 }, { count: 101 }, { count: 1.5 }, { count: '2' }, {}]) {
        const res = await call('POST', '/panel/api/accounts', { cookie: orgA.ownerCookie, body });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'count' });
      }
      const badLimit = await call('GET', '/panel/api/accounts?limit=abc', { cookie: orgA.ownerCookie });
      expect(badLimit.status).toBe(400);
      const badCursor = await call('GET', '/panel/api/accounts?cursor=tampered.cursor', { cookie: orgA.ownerCookie });
      expect(badCursor.status).toBe(400);
      expect(badCursor.body.error?.code).toBe('invalid_cursor');
    });

    it('keeps members from spending credits', async () => {
      const res = await call('POST', '/panel/api/accounts', { cookie: orgA.memberCookie, body: { count: 1 } });
      expect(res.status).toBe(403);
    });
  });

  describe('logs', () => {
    it('never contain a password, a session token or an API key', () => {
      expect(logs.lines.length).toBeGreaterThan(10);
      expect(logs.lines.some((line) => line.includes('"name":"panel"'))).toBe(true);
      for (const secret of secretsSeen) {
        expect(logs.lines.filter((line) => line.includes(secret))).toEqual([]);
      }
    });
  });

  describe('logout', () => {
    it('ends the session and clears the cookie', async () => {
      const cookie = await login('member@a.example');
      const res = await call('POST', '/panel/api/logout', { cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect(String(res.headers['set-cookie'])).toMatch(/pd_session=;/);
      const after = await call('GET', '/panel/api/me', { cookie });
      expect(after.status).toBe(401);
      expect(after.body.error?.code).toBe('unauthorized');
    });
  });
});
