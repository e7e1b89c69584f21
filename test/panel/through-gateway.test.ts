import { chromium, type Browser } from 'playwright-core';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// The whole stack: the browser talks only to the gateway, which proxies /panel and /api-keys.
describe('the panel behind the gateway, in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let email = '';
  const password = 'correct horse battery';
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    const org = await stack.createOrg({ name: 'Gateway Firm', credits: 5 });
    ({ email } = await stack.createUser(org.id, { email: 'owner@gw.example', password, role: 'owner' }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  it('creates a key that works on /v1 at once and stops working the moment it is revoked', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.url}/panel/api-keys`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await page.getByLabel('Name').fill('integration');
    await page.getByRole('group', { name: 'Scopes' }).getByLabel('accounts:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New key' }).locator('code');
    await shown.waitFor();
    const token = (await shown.textContent()) ?? '';
    expect(token).toMatch(/^pfx_live_/);

    const before = await fetch(`${stack.url}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } });
    expect(before.status).toBe(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key integration' }).click();
    await page.getByRole('table', { name: 'API keys' }).getByText('revoked').waitFor();

    const after = await fetch(`${stack.url}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    await page.close();
  });

  it('refuses a cross-site form post through the gateway with 403 forbidden', async () => {
    const cookie = await stack.panelLogin(email, password);
    const res = await fetch(`${stack.url}/panel/api/keys`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stolen', scopes: [] }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });
});
