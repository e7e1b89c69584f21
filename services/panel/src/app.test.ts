import { request } from 'undici';
import { ConfigError, createLogger } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { start, type StartedPanel } from './main';

// The panel alone, with no services behind it: everything here is decided before any gRPC call.
// Cross-service behaviour (login, keys, accounts) is tested in test/panel/.
describe('the panel HTTP edge', () => {
  let panel: StartedPanel;
  let base: string;
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    panel = await start(
      { PANEL_PORT: '0', AUTH_GRPC_ADDRESS: '127.0.0.1:1', ACCOUNTS_GRPC_ADDRESS: '127.0.0.1:1', GRPC_DEADLINE_MS: '1000' },
      { logger: createLogger('panel-test', { level: 'silent' }) },
    );
    base = panel.url;
  }, 180_000);

  afterAll(async () => {
    await panel?.stop();
    await builtPanel?.release();
  });

  async function call(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: string) {
    const res = await request(`${base}${path}`, { method, headers, body });
    const text = await res.body.text();
    const type = String(res.headers['content-type'] ?? '');
    return { status: res.statusCode, headers: res.headers, text, json: type.includes('json') ? JSON.parse(text) : undefined };
  }

  // The built front end (npm test builds it first, with `npm run build:panel`).
  it('answers every page URL with the app shell: module scripts from /panel/assets only, no inline script, a strict CSP', async () => {
    for (const path of ['/panel', '/panel/', '/panel/accounts', '/panel/accounts/1000001', '/panel/webhooks/abc', '/panel/api-keys', '/panel/sign-in']) {
      const res = await call('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        expect(attributes).toMatch(/src="\/panel\/assets\/[\w.-]+\.js"/);
        expect(body.trim()).toBe('');
      }
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('serves the hashed assets for a year, and a missing one is a JSON 404', async () => {
    const shell = await call('GET', '/panel/accounts');
    const script = /src="(\/panel\/assets\/[\w.-]+\.js)"/.exec(shell.text)?.[1] ?? '';
    const asset = await call('GET', script);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(String(asset.headers['cache-control'])).toMatch(/max-age=31536000.*immutable/);
    const missing = await call('GET', '/panel/assets/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('not_found');
  });

  it('answers unknown routes with 404 not_found in the error shape', async () => {
    const res = await call('GET', '/panel/api/nope');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect((await call('POST', '/panel/accounts', { 'content-type': 'application/json' }, '{}')).status).toBe(404);
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await call('POST', '/panel/api/login', { 'content-type': 'application/json' }, '{"email":');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
  });

  it('refuses bodies that are not JSON on state-changing routes', async () => {
    const res = await call('POST', '/panel/api/login', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=a&password=b');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
  });

  it('refuses cross-site requests with 403 forbidden', async () => {
    const json = { 'content-type': 'application/json' };
    const crossSite = await call('POST', '/panel/api/logout', { ...json, 'sec-fetch-site': 'cross-site' }, '{}');
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.error.code).toBe('forbidden');
    const foreignOrigin = await call('POST', '/api-keys/x/revoke', { ...json, origin: 'https://evil.example' }, '{}');
    expect(foreignOrigin.status).toBe(403);
  });

  it('checks login input before asking the auth service', async () => {
    const res = await call('POST', '/panel/api/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'a@b.c' }));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param: 'password' });
  });

  it('answers 401 unauthorized without a session cookie, whatever Authorization says', async () => {
    const bearer = { authorization: `Bearer pfx_live_${'a'.repeat(40)}` };
    for (const [method, path] of [
      ['GET', '/panel/api/me'],
      ['GET', '/panel/api/keys'],
      ['GET', '/panel/api/accounts'],
      ['POST', '/panel/api/keys'],
      ['POST', '/api-keys/6c1f7c8a-1b2c-4d5e-8f90-123456789abc/revoke'],
    ] as const) {
      const res = await call(method, path, bearer);
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('unauthorized');
    }
  });

  it('logs out idempotently and clears the cookie even without a session', async () => {
    const res = await call('POST', '/panel/api/logout');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(String(res.headers['set-cookie'])).toMatch(/pd_session=;.*Expires=Thu, 01 Jan 1970/);
  });

  it('answers 503 unavailable when the auth service is down', async () => {
    const res = await call('GET', '/panel/api/me', { cookie: 'pd_session=whatever' });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('unavailable');
  });
});

describe('panel configuration', () => {
  it('names the bad variable instead of starting', async () => {
    await expect(start({ PANEL_PORT: 'eighty' })).rejects.toThrow(ConfigError);
    await expect(start({ PANEL_PORT: 'eighty' })).rejects.toThrow(/PANEL_PORT/);
  });
});
