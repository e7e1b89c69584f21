import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tradingv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, waitUntil, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, openContext, pwned, screenshot, signIn } from './browser';

const PASSWORD = 'correct horse battery';
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1"><b>Eve</b>';

/** What a firm's staff do in the panel, end to end in Chromium, found by role and accessible name. */
describe('the panel in Chromium: what staff do', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let orgId = '';
  let base = '';
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    base = stack.url;
    orgId = (await stack.createOrg({ name: 'Flows Firm', credits: 200 })).id;
    await stack.createUser(orgId, { email: 'owner@flows.example', password: PASSWORD, role: 'owner' });
    browser = await launchChromium();
    context = await openContext(browser, 'desktop');
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  const table = (name: string) => page.getByRole('table', { name, exact: true });

  /** Waits until the table shows exactly `count` account links (a new filter refetches the list). */
  async function accountLinks(count: number): Promise<void> {
    const links = table('Accounts').getByRole('link');
    for (let i = 0; i < 100 && (await links.count()) !== count; i += 1) await page.waitForTimeout(50);
    expect(await links.count()).toBe(count);
  }

  it('refuses a wrong password readably, then signs in and returns to the page asked for', async () => {
    await page.goto(`${base}/panel/events`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('owner@flows.example');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Wrong email or password.').waitFor();
    await screenshot(page, 'flow-sign-in-refused');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/panel/events');
    await page.reload();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
  });

  it('reaches every section from the navigation landmark', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const [link, path, heading] of [
      ['Accounts', '/panel/accounts', 'Accounts'],
      ['Programs', '/panel/programs', 'Programs'],
      ['Webhooks', '/panel/webhooks', 'Webhooks'],
      ['Events', '/panel/events', 'Events'],
      ['API keys', '/panel/api-keys', 'API keys'],
      ['Team', '/panel/team', 'Team'],
    ]) {
      await nav.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
    }
  });

  it('creates accounts, filters them by status, searches by number and trader email, and loads more', async () => {
    await page.goto(`${base}/panel/accounts`);
    await page.getByLabel('Count').fill('3');
    await page.getByRole('button', { name: 'Create accounts' }).click();
    await page.getByRole('status').getByText(/^3 accounts created: 1000001, 1000002, 1000003\.$/).waitFor();
    const first = 1000001;
    await stack.admin.accounts.call.assignTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, number: '1000002', name: 'Zed Trader', email: 'zed@traders.example' });
    await stack.admin.trading.call.breachAccount({ organizationId: orgId, mode: Mode.MODE_LIVE, number: '1000003', reason: 'manual check' });

    await page.getByRole('combobox', { name: 'Status' }).selectOption('breached');
    await table('Accounts').getByRole('link', { name: '1000003' }).waitFor();
    await accountLinks(1);
    expect(new URL(page.url()).search).toBe('?status=breached');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');

    await page.getByRole('searchbox', { name: 'Search' }).fill(String(first));
    await page.waitForURL(/q=1000001/);
    await table('Accounts').getByRole('link', { name: '1000001' }).waitFor();
    await accountLinks(1);
    await page.getByRole('searchbox', { name: 'Search' }).fill('ZED@traders.example');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.waitForURL(/q=ZED/);
    await table('Accounts').getByRole('cell', { name: /Zed Trader/ }).waitFor();
    await accountLinks(1);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');

    await stack.createAccounts(orgId, 55);
    await page.reload();
    await accountLinks(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await table('Accounts').getByRole('link', { name: '1000058' }).waitFor();
    await accountLinks(58);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await screenshot(page, 'flow-accounts-loaded');
  });

  it('on an account: assigns a trader named in HTML (shown as text), draws the curve, breaches with a reason, shows evidence and credentials', async () => {
    await page.goto(`${base}/panel/accounts/1000001`);
    await page.getByRole('heading', { name: 'Account 1000001' }).waitFor();
    await page.getByLabel('Trader name').fill(HOSTILE_NAME);
    await page.getByLabel('Trader email').fill('eve@traders.example');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await page.getByText(HOSTILE_NAME, { exact: true }).waitFor();
    expect(await pwned(page)).toBe(false);

    await page.locator('figure[data-state="drawn"]').waitFor();
    expect(await page.getByRole('img', { name: /^Equity curve of account 1000001/ }).count()).toBe(1);

    await page.getByRole('button', { name: 'Breach', exact: true }).click();
    await page.getByText('Give the reason for the breach.').waitFor();
    expect(await page.getByLabel('Breach reason').getAttribute('aria-invalid')).toBe('true');
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
    });
    await page.getByLabel('Breach reason').fill('hedging between two accounts');
    await page.getByRole('button', { name: 'Breach', exact: true }).click();
    await page.getByRole('status').getByText('Account 1000001 was breached.').waitFor();
    expect(asked).toContain('Breach account 1000001');
    await table('Flags and breaches').getByRole('cell', { name: /hedging between two accounts/ }).waitFor();
    await table('Flags and breaches').getByText('start of day balance').waitFor();

    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByRole('status').getByText('Account 1000001 was reset.').waitFor();
    const { account: reset } = await stack.admin.accounts.call.getAccount({ organizationId: orgId, mode: Mode.MODE_LIVE, number: '1000001' });
    expect(reset).toMatchObject({ status: 1, attempt: 2 });

    await page.getByRole('button', { name: 'Show credentials' }).click();
    await page.getByText('Password', { exact: true }).waitFor();
    await screenshot(page, 'flow-account-breached');
  });

  it('asks before a destructive action and does nothing when the answer is no', async () => {
    await page.goto(`${base}/panel/accounts/1000004`);
    await page.getByRole('heading', { name: 'Account 1000004' }).waitFor();
    await page.getByRole('button', { name: 'Archive', exact: true }).waitFor();
    page.removeAllListeners('dialog');
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    page.on('dialog', (dialog) => void dialog.accept());
    const { account } = await stack.admin.accounts.call.getAccount({ organizationId: orgId, mode: Mode.MODE_LIVE, number: '1000004' });
    expect(account?.status).toBe(1);
  });

  it('shows a program field error next to its field', async () => {
    await page.goto(`${base}/panel/programs`);
    await page.getByRole('button', { name: 'New program' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Two Step!');
    const phase = page.getByRole('group', { name: 'Phase 1' });
    await phase.getByLabel('Profit target (%)').fill('');
    await page.getByRole('button', { name: 'Add phase' }).click();
    await page.getByRole('group', { name: 'Phase 2' }).getByLabel('Kind').selectOption('funded');
    await page.getByRole('button', { name: 'Create program' }).click();
    await phase.getByText('An evaluation phase needs a target above 0.').waitFor();
    expect(await phase.getByLabel('Profit target (%)').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Use 2–63 lower-case letters, digits or dashes, starting with a letter or digit.').waitFor();
    await screenshot(page, 'flow-program-field-error');
  });

  it('registers a webhook with its secret shown once, sends a test event and lists its delivery', async () => {
    await page.goto(`${base}/panel/webhooks`);
    await page.getByLabel('URL').fill('https://127.0.0.1:9/flows');
    const events = page.getByRole('group', { name: 'Event types' });
    await events.getByLabel('account.breached').check();
    await events.getByLabel('account.passed').check();
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = page.getByRole('region', { name: 'Signing secret' }).locator('code');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    await screenshot(page, 'flow-webhook-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('region', { name: 'Signing secret' }).waitFor({ state: 'detached' });

    await table('Webhooks').getByRole('link', { name: 'https://127.0.0.1:9/flows' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await table('Deliveries').getByRole('button', { name: /^Retry/ }).waitFor();
    await screenshot(page, 'flow-webhook-delivery');
  });

  it('edits a webhook’s URL, events and description, and recovers its failed deliveries, with errors at their fields', async () => {
    await page.goto(`${base}/panel/webhooks`);
    const webhooks = table('Webhooks');
    await webhooks.getByRole('button', { name: 'Edit https://127.0.0.1:9/flows' }).click();
    const edit = page.getByRole('form', { name: 'Edit https://127.0.0.1:9/flows' });
    await edit.getByLabel('URL').fill('https://127.0.0.1:9/flows edited');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByText('Enter an https:// URL.').waitFor();
    expect(await edit.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    await edit.getByLabel('URL').fill('https://127.0.0.1:9/flows-edited');
    await edit.getByLabel('Description').fill('CRM sync');
    await edit.getByRole('group', { name: 'Event types' }).getByLabel('account.created').check();
    await screenshot(page, 'flow-webhook-edit');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint saved.' }).waitFor();
    await webhooks.getByRole('link', { name: 'https://127.0.0.1:9/flows-edited' }).waitFor();
    await webhooks.getByText('CRM sync').waitFor();
    await screenshot(page, 'flow-webhook-edited');

    await webhooks.getByRole('button', { name: 'Recover failed deliveries of https://127.0.0.1:9/flows-edited' }).click();
    const recover = page.getByRole('form', { name: 'Recover failed deliveries of https://127.0.0.1:9/flows-edited' });
    await recover.getByLabel('Failed since (UTC)').fill(new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 16));
    await recover.getByRole('button', { name: 'Recover deliveries' }).click();
    await recover.getByText('since must be at most 14 days ago').waitFor();
    expect(await recover.getByLabel('Failed since (UTC)').getAttribute('aria-invalid')).toBe('true');
    await recover.getByLabel('Failed since (UTC)').fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16));
    await recover.getByRole('button', { name: 'Recover deliveries' }).click();
    await page.getByRole('status').filter({ hasText: /failed deliver(y|ies) queued again/ }).waitFor();

    await webhooks.getByRole('link', { name: 'https://127.0.0.1:9/flows-edited' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByText('CRM sync').waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByRole('form', { name: 'Edit https://127.0.0.1:9/flows-edited' }).getByLabel('Description').inputValue()).toBe('CRM sync');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await page.getByRole('form', { name: 'Recover failed deliveries of https://127.0.0.1:9/flows-edited' }).getByRole('button', { name: 'Recover deliveries' }).click();
    await page.getByRole('status').filter({ hasText: /failed deliver(y|ies) queued again/ }).waitFor();
  });

  it('filters the event feed by type and reads an event\'s data', async () => {
    await page.goto(`${base}/panel/events`);
    await page.getByRole('combobox', { name: 'Type' }).selectOption('account.breached');
    await page.waitForURL(/type=account.breached/);
    const rows = table('Events').locator('tbody tr');
    await rows.first().getByText('account.breached').waitFor();
    expect(await rows.count()).toBe(2);
    await rows.first().getByText(/^Data of evt_/).click();
    await rows.first().locator('pre').getByText(/"status": "breached"/).waitFor();
  });

  it('creates a key shown once, then revokes it', async () => {
    await page.goto(`${base}/panel/api-keys`);
    await page.getByLabel('Name').fill('crm integration');
    await page.getByRole('group', { name: 'Scopes' }).getByLabel('accounts:read').check();
    await page.getByRole('combobox', { name: 'Expires' }).selectOption({ label: 'In 30 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = page.getByRole('region', { name: 'New key' }).locator('code');
    await token.waitFor();
    const firstToken = (await token.textContent()) ?? '';
    expect(firstToken).toMatch(/^pfx_live_[A-Za-z0-9]{40}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = table('API keys').getByRole('row', { name: /crm integration/ });
    expect(await row.getByRole('cell').nth(4).textContent()).toMatch(/UTC$/);

    await page.getByRole('button', { name: 'Set limits of key crm integration' }).click();
    await page.getByLabel('Reads per minute for crm integration').fill('300');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await row.getByText('300 / default').waitFor();

    await page.getByRole('button', { name: 'Roll key crm integration' }).click();
    const rolled = page.getByRole('region', { name: 'New key' }).locator('code');
    await rolled.waitFor();
    expect(await rolled.textContent()).toMatch(/^pfx_live_/);
    expect(await rolled.textContent()).not.toBe(firstToken);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await table('API keys').getByRole('row', { name: /crm integration/ }).count()).toBe(2);

    await page.getByRole('button', { name: 'Revoke key crm integration' }).first().click();
    await table('API keys').getByText('revoked').waitFor();
    await screenshot(page, 'flow-keys');
  });

  it('adds a member, who then sees no management controls and whom the API refuses', async () => {
    await page.goto(`${base}/panel/team`);
    await page.getByLabel('Email').fill('reader@flows.example');
    await page.getByLabel('Initial password').fill(PASSWORD);
    await page.getByRole('combobox', { name: 'Role' }).selectOption('member');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('status').getByText('reader@flows.example was added as member.').waitFor();

    const memberContext = await openContext(browser, 'desktop');
    try {
      const member = await memberContext.newPage();
      await signIn(member, base, 'reader@flows.example', PASSWORD, '/panel/accounts/1000002');
      await member.getByRole('heading', { name: 'Account 1000002' }).waitFor();
      await member.locator('figure.chart').waitFor();
      for (const name of ['Reset', 'Archive', 'Breach', 'Payout', 'Assign', 'Unassign', 'Show credentials']) {
        expect({ name, count: await member.getByRole('button', { name, exact: true }).count() }).toEqual({ name, count: 0 });
      }
      const refused = await member.evaluate(async () => {
        const response = await fetch('/panel/api/accounts/1000002/archive', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return { status: response.status, body: (await response.json()) as unknown };
      });
      expect(refused).toEqual({ status: 403, body: { error: { code: 'forbidden', message: expect.any(String) } } });
      await screenshot(member, 'flow-member-account');
    } finally {
      await memberContext.close();
    }
  });

  it("draws an account's loss limits where its rules put them, also once its equity fell below them", async () => {
    const [number] = await stack.createAccounts(orgId, 1);
    const trading = stack.admin.trading.call;
    const quote = (price: number) => trading.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price, time: new Date() } });
    await quote(1.1);
    await trading.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(number), symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 10, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
    // 15,000 lost: equity 85,000, under the daily limit (95,000) and the total one (90,000); the rule breaches the account.
    await quote(1.085);
    await page.goto(`${base}/panel/accounts/${number}`);
    await page.getByText('breached', { exact: true }).first().waitFor();
    await page.locator('figure[data-state="drawn"]').waitFor();
    const chart = page.getByRole('img', { name: new RegExp(`^Equity curve of account ${number}`) });
    // The curve is drawn from the equity points, then again with the levels once the account's
    // analytics have arrived: its label names them from then on.
    const name = await waitUntil(async () => {
      const label = (await chart.getAttribute('aria-label')) ?? '';
      return label.includes('loss limit') && label;
    }, { timeoutMs: 10_000, what: 'the chart labelled with its loss limits' });
    expect(name).toMatch(/equity now 85,000\.00/);
    expect(name).toMatch(/daily loss limit at 95,000\.00; total loss limit at 90,000\.00/);
  });

  it('signs out back to the sign-in page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${base}/panel/team`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
