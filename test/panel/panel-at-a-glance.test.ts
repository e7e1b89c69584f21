import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tradingv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, screenshot, signIn, VIEWPORTS } from './browser';

/**
 * The account page read at a glance, in Chromium: live prices and P/L of open positions, the
 * trader card's controls, every amount with its currency, the phase said once, the chart's time
 * axis in UTC 24-hour time, the credits left where accounts are created, Breach set apart.
 */

const PASSWORD = 'correct horse battery';

let stack: Stack;
let builtPanel: TestLock | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let orgId = '';
let traded = 0;
let assigned = 0;

const quote = (price: number) => stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price, time: new Date() } });
const table = (name: string) => page.getByRole('table', { name, exact: true });
/** The value a term of the account's facts has ("Phase" -> "1: evaluation"). */
const fact = (term: string) => page.locator('dl.identity dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');

beforeAll(async () => {
  // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
  builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
  stack = await startStack();
  orgId = (await stack.createOrg({ name: 'Glance Firm', credits: 12 })).id;
  await stack.createUser(orgId, { email: 'owner@glance.example', password: PASSWORD, role: 'owner' });
  [traded, assigned] = await stack.createAccounts(orgId, 2);
  await stack.admin.accounts.call.assignTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(assigned), name: 'Ada Holder', email: 'ada@traders.example' });
  await quote(1.1);
  await stack.admin.trading.call.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(traded), symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
  await quote(1.099);
  browser = await launchChromium();
  // A viewer far from UTC (+05:30): the page still reads UTC.
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, deviceScaleFactor: 1, timezoneId: 'Asia/Kolkata' });
  context.on('page', (p) => p.on('dialog', (dialog) => void dialog.accept()));
  // The chart draws its axes on a canvas: every text it draws is kept for the test to read.
  await context.addInitScript(() => {
    const scope = globalThis as unknown as { __drawn: string[]; CanvasRenderingContext2D: { prototype: { fillText: (text: string, ...rest: number[]) => void } } };
    scope.__drawn = [];
    const fillText = scope.CanvasRenderingContext2D.prototype.fillText;
    scope.CanvasRenderingContext2D.prototype.fillText = function (this: unknown, text: string, ...rest: number[]) {
      scope.__drawn.push(String(text));
      return fillText.call(this, text, ...rest);
    };
  });
  page = await context.newPage();
  await signIn(page, stack.url, 'owner@glance.example', PASSWORD);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
  await builtPanel?.release();
});

it('shows the current price and floating P/L of open positions, following the quotes as they arrive', async () => {
  await page.goto(`${stack.url}/panel/accounts/${traded}`);
  const row = table('Open positions').getByRole('row').filter({ hasText: 'EURUSD' });
  await row.getByRole('cell', { name: '-100.00 USD', exact: true }).waitFor();
  await row.getByRole('cell', { name: '1.099', exact: true }).waitFor();
  await quote(1.1025);
  // No reload: the table reads the positions again while any is open.
  await row.getByRole('cell', { name: '250.00 USD', exact: true }).waitFor({ timeout: 10_000 });
  await row.getByRole('cell', { name: '1.1025', exact: true }).waitFor();
});

it('writes every amount with its currency and says the program and phase once each', async () => {
  await page.goto(`${stack.url}/panel/accounts/${traded}`);
  for (const term of ['Balance', 'Equity', 'Peak equity', 'Initial balance']) {
    expect({ term, text: await fact(term).textContent() }).toEqual({ term, text: expect.stringMatching(/^[\d,]+\.\d\d USD$/) });
  }
  expect(await fact('Program').textContent()).toBe('standard v1');
  expect(await fact('Phase').textContent()).toBe('1: evaluation');
  const left = page.getByRole('table', { name: /^Limits/ }).getByRole('row').filter({ hasText: 'Max daily loss' }).getByRole('cell').last();
  expect(await left.textContent()).toMatch(/^[\d,]+\.\d\d USD$/);
  for (const level of await page.locator('.chart-levels li').allTextContents()) expect(level).toMatch(/ [\d,]+\.\d\d USD$/);
  expect(await page.getByRole('img', { name: /^Equity curve of account/ }).getAttribute('aria-label')).toMatch(/Amounts in USD, times in UTC\.$/);
});

it("draws the equity chart's time axis in UTC and 24-hour time", async () => {
  await page.goto(`${stack.url}/panel/accounts/${traded}`);
  await page.locator('figure[data-state="drawn"]').waitFor();
  const drawn = await page.evaluate(() => (globalThis as unknown as { __drawn: string[] }).__drawn);
  const times = drawn.filter((text) => /^\d{2}:\d{2}$/.test(text));
  expect(times.length).toBeGreaterThan(2);
  expect(drawn.filter((text) => /\d\s?(am|pm)$/i.test(text))).toEqual([]);
  expect(drawn).toContain('Time (UTC)');
  expect(drawn).toContain('USD');
  // The curve spans about an hour around now: its ticks are UTC hours, not the viewer's (+05:30).
  const now = new Date();
  const utcHours = [-1, 0, 1].map((d) => (now.getUTCHours() + d + 24) % 24);
  for (const time of times) expect({ time, utc: utcHours.includes(Number(time.slice(0, 2))) }).toEqual({ time, utc: true });
});

it('offers Assign on an unassigned account, Reassign on an assigned one, and reassigns', async () => {
  await page.goto(`${stack.url}/panel/accounts/${traded}`);
  await page.getByRole('button', { name: 'Assign', exact: true }).waitFor();
  expect(await page.getByRole('button', { name: 'Reassign', exact: true }).count()).toBe(0);

  await page.goto(`${stack.url}/panel/accounts/${assigned}`);
  await page.getByText('ada@traders.example').waitFor();
  expect(await page.getByLabel('Trader name').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Assign', exact: true }).count()).toBe(0);
  await screenshot(page, 'glance-trader-assigned');
  await page.getByRole('button', { name: 'Reassign', exact: true }).click();
  await page.getByLabel('Trader name').fill('Bo Next');
  await page.getByLabel('Trader email').fill('bo@traders.example');
  await page.getByRole('button', { name: 'Reassign', exact: true }).click();
  await page.getByText('bo@traders.example').waitFor();
  expect(await page.getByLabel('Trader name').count()).toBe(0);
  const { account } = await stack.admin.accounts.call.getAccount({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(assigned) });
  const { trader } = await stack.admin.accounts.call.getTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, traderId: account?.traderId ?? '' });
  expect(trader?.email).toBe('bo@traders.example');
});

it('sets Breach and Archive apart from the routine actions', async () => {
  await page.goto(`${stack.url}/panel/accounts/${traded}`);
  const routine = page.getByRole('region', { name: 'Actions' });
  const ending = page.getByRole('region', { name: 'End the account' });
  for (const name of ['Reset', 'Payout']) await routine.getByRole('button', { name, exact: true }).waitFor();
  for (const name of ['Breach', 'Archive']) {
    await ending.getByRole('button', { name, exact: true }).waitFor();
    expect(await routine.getByRole('button', { name, exact: true }).count()).toBe(0);
  }
  await screenshot(page, 'glance-account-actions');
});

it('shows the credits left where accounts are created, and what creating spends', async () => {
  await page.goto(`${stack.url}/panel/accounts`);
  const credits = page.locator('.credits strong');
  await page.getByText('Credits left:').waitFor();
  await credits.filter({ hasText: /^\d+$/ }).waitFor();
  expect(await credits.textContent()).toBe('10');
  await page.getByLabel('Count').fill('3');
  await page.getByRole('button', { name: 'Create accounts' }).click();
  await page.getByRole('status').getByText(/^3 accounts created/).waitFor();
  await credits.filter({ hasText: /^7$/ }).waitFor();
});
