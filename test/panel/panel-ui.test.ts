import { chromium, type Browser, type Page } from 'playwright-core';
import { authv1 } from '@propdesk/proto';
import { createPanelClients, type PanelClients } from '../../services/panel/src/clients';
import { startServices, type TestServices } from './services';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.PANEL_SCREENSHOT_DIR ?? '/tmp';

describe('the panel web UI in headless Chromium', () => {
  let services: TestServices;
  let clients: PanelClients;
  let browser: Browser;
  let page: Page;
  let orgId = '';

  beforeAll(async () => {
    services = await startServices({ panel: true });
    const { AUTH_GRPC_ADDRESS, ACCOUNTS_GRPC_ADDRESS } = services.clientEnv;
    clients = createPanelClients({ auth: AUTH_GRPC_ADDRESS, accounts: ACCOUNTS_GRPC_ADDRESS, webhooks: '127.0.0.1:1' }, 5000);
    const org = await clients.auth.createOrganization({ name: 'UI Firm', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '10' });
    orgId = org.organization?.id ?? '';
    await clients.auth.createUser({ organizationId: orgId, email: 'owner@ui.example', password: 'correct horse battery', role: authv1.Role.ROLE_OWNER });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    clients?.close();
    await services?.stop();
  });

  it('refuses a wrong password with a readable message', async () => {
    await page.goto(`${services.panelUrl}/panel`);
    await page.getByLabel('Email').fill('owner@ui.example');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong email or password.').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/panel-login.png` });
  });

  it('signs in, creates a key shown once, and revokes it', async () => {
    // A name that would run script if it were rendered as HTML.
    const hostileName = '<img src=x onerror="window.__pwned=1">shop';
    await page.getByLabel('Email').fill('owner@ui.example');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('owner@ui.example (owner)').waitFor();

    await page.getByLabel('Name').fill(hostileName);
    await page.getByLabel('accounts:write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = page.locator('#new-token-value');
    await token.waitFor();
    expect(await token.textContent()).toMatch(/^pfx_live_[A-Za-z0-9]{40}$/);
    const row = page.locator('#keys-body tr', { hasText: 'shop' });
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe(hostileName);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.screenshot({ path: `${SCREENSHOTS}/panel-key-created.png`, fullPage: true });

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('#new-token').isHidden()).toBe(true);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /Revoke key/ }).click();
    await page.locator('#keys-body tr', { hasText: 'revoked' }).waitFor();
    const keys = await clients.auth.listApiKeys({ organizationId: orgId, pageSize: 10, pageToken: '' });
    expect(keys.apiKeys[0]?.revokedAt).toBeInstanceOf(Date);
  });

  it('creates accounts in bulk and lists them', async () => {
    await page.getByLabel('How many (1–100)').fill('3');
    await page.getByRole('button', { name: 'Create accounts' }).click();
    await page.getByText('3 accounts created.').waitFor();
    expect(await page.locator('#accounts-body tr').count()).toBe(3);
    await page.screenshot({ path: `${SCREENSHOTS}/panel-accounts.png`, fullPage: true });
  });

  it('signs out back to the sign-in form', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
