import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { client } from '../support/http';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, openContext, pwned, screenshot, signIn } from './browser';

const PASSWORD = 'correct horse battery';

/**
 * SPEC 14 in Chromium: the Audit log page (a navigation link named "Audit log" for owners and
 * admins; members see none and the panel API refuses them), its filters and Load more, and the
 * account page's timeline of events and changes.
 */
describe('the panel in Chromium: the audit log', () => {
  let stack: Stack;
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  let builtPanel: TestLock | undefined;
  let archived = 0;
  let keyPrefix = '';

  beforeAll(async () => {
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    const orgId = (await stack.createOrg({ name: 'Audited Firm', credits: 100 })).id;
    await stack.createUser(orgId, { email: 'owner@audited.example', password: PASSWORD, role: 'owner' });
    await stack.createUser(orgId, { email: 'member@audited.example', password: PASSWORD, role: 'member' });
    const key = await stack.createKey(orgId, undefined, 'integration');
    keyPrefix = key.prefix;
    const api = client(stack.url, key.token);
    // 55 accounts: more entries than a page holds; a trader whose name would be markup if inserted as HTML.
    const numbers = (await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 55 } })).body.data.map((a) => a.number);
    archived = numbers[0];
    await api.put('/v1/accounts/{number}/trader', `/v1/accounts/${archived}/trader`, { body: { name: '<img src=x onerror="globalThis.__pwned=1">', email: 'x@audited.example' } });
    await api.post('/v1/accounts/{number}/archive', `/v1/accounts/${archived}/archive`);
    browser = await launchChromium();
    owner = await openContext(browser, 'desktop');
    page = await owner.newPage();
    await signIn(page, stack.url, 'owner@audited.example', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await owner?.close();
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  const auditTable = () => page.getByRole('table', { name: 'Audit log', exact: true });
  const rows = () => auditTable().getByRole('row');

  it('an owner reaches the Audit log from the navigation: every change, newest first, with who made it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/panel/audit');
    const newest = rows().nth(1);
    await newest.getByRole('cell', { name: 'account.archive', exact: true }).waitFor();
    await newest.getByRole('link', { name: `Account ${archived}` }).waitFor();
    await newest.getByText(`${keyPrefix} (API key)`).waitFor();
    await newest.getByText('status: active → archived').waitFor();
    // A page holds 50 entries (a header row above them); Load more brings the rest.
    expect(await rows().count()).toBe(51);
    await page.getByRole('button', { name: 'Load more' }).click();
    await rows().nth(51).waitFor();
    await page.getByRole('button', { name: /Load more|Loading/ }).waitFor({ state: 'detached' });
    // What the set-up made (the organization, two users and the key by the system; 55 accounts, a
    // trader, an assignment and an archive by the key), under the header row.
    expect(await rows().count()).toBe(1 + 62);
    expect(await pwned(page)).toBe(false);
    await screenshot(page, 'audit-log');
  });

  it('filters by action and by target, and keeps the filters in the address', async () => {
    await page.getByRole('textbox', { name: 'Action' }).fill('account.assign');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=account\.assign/);
    await rows().nth(1).getByRole('cell', { name: 'account.assign', exact: true }).waitFor();
    expect(await rows().count()).toBe(2);
    await page.getByRole('textbox', { name: 'Action' }).fill('');
    await page.getByRole('textbox', { name: 'Target id' }).fill(String(archived));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`target_id=${archived}`));
    await rows().nth(3).waitFor();
    const actions = await auditTable().getByRole('row').evaluateAll((all) => all.slice(1).map((row) => (row as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells[1]?.textContent));
    expect(actions).toEqual(['account.archive', 'account.assign', 'account.create']);
    await page.reload();
    await rows().nth(3).waitFor();
    expect(await page.getByRole('textbox', { name: 'Target id' }).inputValue()).toBe(String(archived));
    // A kind of object the log has no changes to is named as the mistake it is, not an empty log.
    await page.getByRole('textbox', { name: 'Target id' }).fill('');
    await page.getByRole('textbox', { name: 'Target type' }).fill('acount');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'The audit log could not be loaded: The target type must be one of account, trader, program' }).waitFor();
    expect(await auditTable().count()).toBe(0);
  });

  it("the account page shows the account's timeline: its events and the changes made to it", async () => {
    await page.goto(`${stack.url}/panel/accounts/${archived}`);
    const timeline = page.getByRole('table', { name: 'Timeline', exact: true });
    await timeline.getByRole('cell', { name: 'account.archive', exact: true }).waitFor();
    await timeline.getByRole('cell', { name: 'account.archived', exact: true }).waitFor();
    await timeline.getByRole('cell', { name: 'account.created', exact: true }).waitFor();
    await timeline.getByText(`${keyPrefix} (API key)`).first().waitFor();
    expect(await pwned(page)).toBe(false);
    await screenshot(page, 'audit-account-timeline');
  });

  it('a member sees no Audit log link, and the panel API refuses the log to a member', async () => {
    const member = await openContext(browser, 'desktop');
    try {
      const memberPage = await member.newPage();
      await signIn(memberPage, stack.url, 'member@audited.example', PASSWORD);
      const nav = memberPage.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Team', exact: true }).waitFor();
      expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      const cookie = await stack.panelLogin('member@audited.example', PASSWORD);
      const refused = await fetch(`${stack.url}/panel/api/audit`, { headers: { cookie } });
      expect(refused.status).toBe(403);
      expect((await refused.json()) as unknown).toMatchObject({ error: { code: 'forbidden' } });
      await memberPage.goto(`${stack.url}/panel/audit`);
      await memberPage.getByText('The audit log is for owners and admins.').waitFor();
      // The account's timeline is the account page's, which a member reads.
      const timeline = await fetch(`${stack.url}/panel/api/accounts/${archived}/timeline`, { headers: { cookie } });
      expect(timeline.status).toBe(200);
    } finally {
      await member.close();
    }
  });
});
