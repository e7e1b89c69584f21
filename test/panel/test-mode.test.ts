import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { client } from '../support/http';
import { launchChromium, openContext, screenshot, signIn } from './browser';

const PASSWORD = 'correct horse battery';

/**
 * SPEC 13 in Chromium: the "Test mode" switch in the navigation shows the organization's test
 * partition on every page, with a banner reading "Test mode", and survives a reload; the API
 * keys page makes keys of the mode shown (or the one chosen) and shows each key's mode.
 */
describe('the panel in Chromium: test mode', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base = '';
  let liveNumber = 0;
  let testNumber = 0;
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    base = stack.url;
    const orgId = (await stack.createOrg({ name: 'Sandbox Firm', credits: 20 })).id;
    await stack.createUser(orgId, { email: 'owner@sandbox.example', password: PASSWORD, role: 'owner' });
    const live = client(stack.url, (await stack.createKey(orgId)).token);
    const test = client(stack.url, (await stack.createKey(orgId, undefined, 'sandbox', { mode: 'test' })).token);
    liveNumber = (await live.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data[0].number;
    testNumber = (await test.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data[0].number;
    await test.post('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://hooks.example.com/sandbox', events: [] } });
    browser = await launchChromium();
    context = await openContext(browser, 'desktop');
    page = await context.newPage();
    await signIn(page, base, 'owner@sandbox.example', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  const nav = () => page.getByRole('navigation', { name: 'Main' });
  const modeSwitch = () => nav().getByRole('switch', { name: 'Test mode' });
  const banner = () => page.getByRole('status').filter({ hasText: /^Test mode$/ });
  const accountsTable = () => page.getByRole('table', { name: 'Accounts', exact: true });

  it('starts live: the switch is off, no banner, live accounts only', async () => {
    await accountsTable().getByRole('link', { name: String(liveNumber) }).waitFor();
    expect(await modeSwitch().getAttribute('aria-checked')).toBe('false');
    expect(await banner().count()).toBe(0);
    expect(await accountsTable().getByRole('link', { name: String(testNumber) }).count()).toBe(0);
  });

  it('switched on, shows the test partition with the banner on every page, and keeps it across a reload', async () => {
    await modeSwitch().click();
    await banner().waitFor();
    expect(await modeSwitch().getAttribute('aria-checked')).toBe('true');
    await accountsTable().getByRole('link', { name: String(testNumber) }).waitFor();
    expect(await accountsTable().getByRole('link', { name: String(liveNumber) }).count()).toBe(0);
    await screenshot(page, 'test-mode-accounts');

    await page.reload();
    await banner().waitFor();
    expect(await modeSwitch().getAttribute('aria-checked')).toBe('true');
    await accountsTable().getByRole('link', { name: String(testNumber) }).waitFor();

    await accountsTable().getByRole('link', { name: String(testNumber) }).click();
    await page.getByRole('heading', { name: new RegExp(String(testNumber)), level: 1 }).waitFor();
    await banner().waitFor();

    await nav().getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('https://hooks.example.com/sandbox').waitFor();
    await banner().waitFor();
  });

  it('makes keys of the mode shown and shows each key’s mode', async () => {
    await nav().getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await page.getByLabel('Mode').inputValue()).toBe('test');
    await page.getByLabel('Name').fill('panel sandbox key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = await page.getByText(/^pfx_test_[A-Za-z0-9]{40}$/).textContent();
    expect(token).toMatch(/^pfx_test_/);
    const row = page.getByRole('table', { name: 'API keys', exact: true }).getByRole('row').filter({ hasText: 'panel sandbox key' });
    await row.waitFor();
    expect(await row.getByRole('cell', { name: 'Test', exact: true }).count()).toBe(1);
    await screenshot(page, 'test-mode-keys');
  });

  it('switched off, shows live data again without the banner', async () => {
    await modeSwitch().click();
    await nav().getByRole('link', { name: 'Accounts', exact: true }).click();
    await accountsTable().getByRole('link', { name: String(liveNumber) }).waitFor();
    expect(await banner().count()).toBe(0);
    expect(await accountsTable().getByRole('link', { name: String(testNumber) }).count()).toBe(0);
    expect(await modeSwitch().getAttribute('aria-checked')).toBe('false');
  });
});
