import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { tradingv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { horizontalOverflow, launchChromium, screenshot, signIn, VIEWPORTS, type ViewportName } from './browser';

/**
 * Every list at 1280×800 and at 390×844: each row's identity, money and actions lie inside the
 * viewport, nothing scrolls sideways (neither the page nor a table inside it). Long data is seeded
 * on purpose: a long trader name and email, a long webhook URL, a long program description.
 */

const PASSWORD = 'correct horse battery';
const LONG_NAME = 'Maximiliana Alexandra Featherstonehaugh-Worthington';
const LONG_EMAIL = 'maximiliana.featherstonehaugh-worthington@very-long-trading-firm-domain.example';
const LONG_URL = 'https://hooks.example.com/propdesk/integrations/receivers/accounts-and-trading/v2/endpoint';

interface Seed {
  assigned: number;
  traded: number;
  webhookId: string;
}

let stack: Stack;
let builtPanel: TestLock | undefined;
let browser: Browser;
let orgId = '';
const seed: Seed = { assigned: 0, traded: 0, webhookId: '' };
const pages = new Map<ViewportName, Page>();
const contexts: BrowserContext[] = [];

const quote = (price: number) => stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price, time: new Date() } });

beforeAll(async () => {
  // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
  builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
  stack = await startStack();
  orgId = (await stack.createOrg({ name: 'Layout Firm', credits: 40 })).id;
  await stack.createUser(orgId, { email: 'owner@layout.example', password: PASSWORD, role: 'owner' });
  await stack.createUser(orgId, { email: LONG_EMAIL, password: PASSWORD, role: 'member' });
  [seed.assigned, seed.traded] = await stack.createAccounts(orgId, 3);
  await stack.admin.accounts.call.assignTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(seed.assigned), name: LONG_NAME, email: LONG_EMAIL });
  const trading = stack.admin.trading.call;
  const order = (side: tradingv1.Side) => trading.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(seed.traded), symbol: 'EURUSD', side, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
  await quote(1.1);
  const { position } = await order(tradingv1.Side.SIDE_BUY);
  await quote(1.102);
  await trading.closePosition({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(seed.traded), positionId: position?.id ?? '' });
  await order(tradingv1.Side.SIDE_BUY);
  await quote(1.101);
  const endpoint = await stack.admin.webhooks.call.createEndpoint({ organizationId: orgId, mode: Mode.MODE_LIVE, url: LONG_URL, events: [] });
  seed.webhookId = endpoint.endpoint?.id ?? '';
  await stack.admin.webhooks.call.sendTestEvent({ organizationId: orgId, mode: Mode.MODE_LIVE, endpointId: seed.webhookId });
  await stack.createKey(orgId, ['accounts:read', 'accounts:write', 'credentials:read', 'trading:write'], 'reconciliation service of the back office');
  browser = await launchChromium();
  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    // A viewer far from UTC: the panel still shows UTC.
    const context = await browser.newContext({ viewport: VIEWPORTS[viewport], deviceScaleFactor: 1, timezoneId: 'Asia/Kolkata' });
    context.on('page', (page) => page.on('dialog', (dialog) => void dialog.accept()));
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, stack.url, 'owner@layout.example', PASSWORD);
    pages.set(viewport, page);
  }
}, 180_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
  await builtPanel?.release();
});

/** Whether the element lies across the viewport's width (it may be further down: pages scroll down). */
async function horizontallyInside(page: Page, locator: Locator): Promise<{ left: number; right: number; width: number }> {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  if (!box) throw new Error('not rendered');
  const width = page.viewportSize()?.width ?? 0;
  return { left: Math.round(box.x), right: Math.round(box.x + box.width), width };
}

/** Tables that scroll inside their card: none may, at either size. */
async function scrollingTables(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // test/ compiles without the DOM library: the one shape needed here.
    type Box = { scrollWidth: number; clientWidth: number; querySelector(s: string): { textContent: string | null } | null };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Box[] } }).document;
    return [...doc.querySelectorAll('.table-scroll')].filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.querySelector('caption')?.textContent ?? '?');
  });
}

interface PageSpec {
  name: string;
  path: () => string;
  ready: (page: Page) => Promise<void>;
  /** The cells and buttons that must be on screen: identity, money, actions. */
  key: (page: Page) => Locator[];
}

const table = (page: Page, name: string) => page.getByRole('table', { name, exact: true });
const rowOf = (page: Page, tableName: string, text: string | RegExp) => table(page, tableName).getByRole('row').filter({ hasText: text });

const PAGES: PageSpec[] = [
  {
    name: 'accounts',
    path: () => '/panel/accounts',
    ready: (page) => table(page, 'Accounts').getByRole('link', { name: String(seed.assigned) }).waitFor(),
    key: (page) => {
      const row = rowOf(page, 'Accounts', LONG_NAME);
      return [row.getByRole('link', { name: String(seed.assigned) }), row.getByRole('cell', { name: /Featherstonehaugh/ }), row.getByRole('cell').nth(4), row.getByRole('cell').nth(5), page.getByRole('button', { name: 'Create accounts' })];
    },
  },
  {
    name: 'account',
    path: () => `/panel/accounts/${seed.traded}`,
    ready: (page) => table(page, 'Open positions').getByRole('cell', { name: 'EURUSD' }).waitFor(),
    key: (page) => {
      const open = table(page, 'Open positions').getByRole('row').filter({ hasText: 'EURUSD' });
      const trade = table(page, 'Trades').getByRole('row').filter({ hasText: 'EURUSD' });
      return [
        open.getByRole('cell', { name: 'EURUSD' }),
        open.getByRole('cell', { name: '1.101', exact: true }),
        open.getByRole('cell', { name: '-100.00 USD', exact: true }),
        trade.getByRole('cell', { name: /^200\.00 USD$/ }),
        trade.getByRole('cell', { name: /^100,200\.00 USD$/ }),
        ...['Reset', 'Payout', 'Breach', 'Archive', 'Assign', 'Show credentials'].map((name) => page.getByRole('button', { name, exact: true })),
      ];
    },
  },
  {
    name: 'api-keys',
    path: () => '/panel/api-keys',
    ready: (page) => table(page, 'API keys').getByRole('cell', { name: 'reconciliation service of the back office', exact: true }).waitFor(),
    key: (page) => [
      table(page, 'API keys').getByRole('cell', { name: 'reconciliation service of the back office', exact: true }),
      ...['Roll key', 'Set limits of key', 'Revoke key'].map((verb) => page.getByRole('button', { name: `${verb} reconciliation service of the back office` })),
    ],
  },
  {
    name: 'webhooks',
    path: () => '/panel/webhooks',
    ready: (page) => table(page, 'Webhooks').getByRole('link', { name: LONG_URL }).waitFor(),
    key: (page) => [table(page, 'Webhooks').getByRole('link', { name: LONG_URL }), page.getByRole('button', { name: `Delete ${LONG_URL}` })],
  },
  {
    name: 'webhook',
    path: () => `/panel/webhooks/${seed.webhookId}`,
    ready: (page) => table(page, 'Deliveries').getByRole('button', { name: /^Retry delivery/ }).first().waitFor(),
    key: (page) => [table(page, 'Deliveries').getByRole('button', { name: /^Retry delivery/ }).first(), page.getByRole('button', { name: 'Send test event' }), page.getByRole('button', { name: 'Delete' })],
  },
  {
    name: 'programs',
    path: () => '/panel/programs',
    ready: (page) => table(page, 'Programs').getByRole('cell', { name: /^standard/ }).waitFor(),
    key: (page) => [table(page, 'Programs').getByRole('cell', { name: /^standard/ }), table(page, 'Programs').getByRole('cell', { name: /^100,000\.00 USD$/ }).first()],
  },
  {
    name: 'events',
    path: () => '/panel/events',
    ready: (page) => table(page, 'Events').getByText(/^Data of evt_/).first().waitFor(),
    key: (page) => [table(page, 'Events').getByText(/^Data of evt_/).first(), table(page, 'Events').getByRole('link').first()],
  },
  {
    name: 'team',
    path: () => '/panel/team',
    ready: (page) => table(page, 'Team').getByRole('cell', { name: LONG_EMAIL, exact: true }).waitFor(),
    key: (page) => [table(page, 'Team').getByRole('cell', { name: LONG_EMAIL, exact: true }), page.getByRole('button', { name: `Change role of ${LONG_EMAIL}` }), page.getByRole('button', { name: `Remove ${LONG_EMAIL}` })],
  },
];

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the panel at %s size', (viewport) => {
  it.each(PAGES.map((spec) => [spec.name, spec] as const))("%s: each row's identity, money and actions on screen, nothing scrolls sideways", async (_name, spec) => {
    const page = pages.get(viewport) as Page;
    await page.goto(`${stack.url}${spec.path()}`);
    await spec.ready(page);
    for (const [i, locator] of spec.key(page).entries()) {
      const box = await horizontallyInside(page, locator);
      expect({ page: spec.name, element: i, inside: box.left >= 0 && box.right <= box.width }).toEqual({ page: spec.name, element: i, inside: true });
    }
    expect({ page: spec.name, overflow: await horizontalOverflow(page), scrollingTables: await scrollingTables(page) }).toEqual({ page: spec.name, overflow: 0, scrollingTables: [] });
    await screenshot(page, `layout-${spec.name}-${viewport}`);
  });
});
