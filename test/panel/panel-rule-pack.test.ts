import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Mode } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, waitUntil, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, openContext, screenshot, signIn } from './browser';

const PASSWORD = 'correct horse battery';

/** SPEC 15 in the panel: the program form's rule pack, each field's error next to it, in Chromium. */
describe("the panel's program form: the rule pack", () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let orgId = '';
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    orgId = (await stack.createOrg({ name: 'Rules Firm', credits: 10 })).id;
    await stack.createUser(orgId, { email: 'owner@rules.example', password: PASSWORD, role: 'owner' });
    browser = await launchChromium();
    context = await openContext(browser, 'desktop');
    page = await context.newPage();
    await signIn(page, stack.url, 'owner@rules.example', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  it('creates a program with the rule pack, showing a bad field next to it first', async () => {
    await page.goto(`${stack.url}/panel/programs`);
    await page.getByRole('button', { name: 'New program' }).click();
    await page.getByLabel('Name', { exact: true }).fill('rulebook');
    const phase = page.getByRole('group', { name: 'Phase 1' });
    await phase.getByLabel('Max open positions').fill('3');
    await phase.getByLabel('Max risk per trade (%)').fill('1.5');
    await phase.getByLabel('Daily loss action').selectOption('lock');
    await phase.getByLabel('Daily profit cap (%)').fill('2');
    await phase.getByLabel('Trading hours start').fill('09:30');
    await phase.getByLabel('Trading hours end').fill('16:00');
    await phase.getByLabel('Trading hours time zone').fill('Mars/Olympus');
    await phase.getByLabel('Trading day time zone').fill('America/New_York');
    await phase.getByLabel('Trading day start').fill('17:00');
    await phase.getByLabel('Stop loss required').check();
    await phase.getByLabel('Close positions at the session end').check();
    await page.getByRole('button', { name: 'Create program' }).click();
    await phase.getByText('Enter an IANA time zone such as America/New_York.').waitFor();
    expect(await phase.getByLabel('Trading hours time zone').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'flow-program-rule-pack-error');
    await phase.getByLabel('Trading hours time zone').fill('America/New_York');
    await page.getByRole('button', { name: 'Create program' }).click();
    const program = await waitUntil(
      async () => {
        const found = await stack.admin.accounts.call.getProgram({ organizationId: orgId, mode: Mode.MODE_LIVE, name: 'rulebook', version: 0 }).catch(() => undefined);
        return found?.program;
      },
      { what: 'the program created', timeoutMs: 15_000 },
    );
    expect((program as { phases: unknown[] }).phases[0]).toMatchObject({
      max_open_positions: 3,
      max_trades_per_day: null,
      stop_loss_required: true,
      max_risk_per_trade_pct: 1.5,
      trading_hours: { start: '09:30', end: '16:00', timezone: 'America/New_York' },
      close_at_session_end: true,
      daily_loss_action: 'lock',
      daily_profit_cap_pct: 2,
      trading_day: { timezone: 'America/New_York', start: '17:00' },
    });
  });
});
