import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tradingv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { horizontalOverflow, launchChromium, openContext, pwned, screenshot, signIn, VIEWPORTS, type ViewportName } from './browser';

const PASSWORD = 'correct horse battery';
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1"><b>Eve</b>';
type Role = 'owner' | 'admin' | 'member';

interface Seed {
  accounts: number[];
  traded: number;
  webhookId: string;
}

interface PageSpec {
  name: string;
  path: (seed: Seed) => string;
  /** Checks what every role sees; returns the management controls, which only managers may see. */
  check: (page: Page, seed: Seed) => Promise<void>;
  managementControls: (page: Page) => ReturnType<Page['getByRole']>[];
  /** Who gets management controls on this page. */
  managers: Role[];
}

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

const PAGES: PageSpec[] = [
  {
    name: 'accounts',
    path: () => '/panel/accounts',
    async check(page, seed) {
      await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
      await page.getByRole('table', { name: 'Accounts' }).getByRole('link', { name: String(seed.accounts[0]) }).waitFor();
      await page.getByRole('combobox', { name: 'Status' }).waitFor();
      await page.getByRole('searchbox', { name: 'Search' }).waitFor();
      // The hostile name is shown as the text it is.
      await page.getByRole('cell', { name: /<img src=x onerror/ }).waitFor();
    },
    managementControls: (page) => [button(page, 'Create accounts')],
    managers: ['owner', 'admin'],
  },
  {
    name: 'account',
    path: (seed) => `/panel/accounts/${seed.traded}`,
    async check(page, seed) {
      await page.getByRole('heading', { name: `Account ${seed.traded}` }).waitFor();
      await page.getByRole('img', { name: /^Equity curve/ }).waitFor();
      await page.locator('figure[data-state="drawn"]').waitFor();
      await page.getByRole('table', { name: 'Open positions' }).waitFor();
      await page.getByRole('table', { name: 'Trades' }).getByRole('cell', { name: 'EURUSD' }).first().waitFor();
      await page.getByRole('table', { name: 'Flags and breaches' }).getByText('copy trading').waitFor();
      await page.getByRole('table', { name: /^Limits/ }).waitFor();
    },
    managementControls: (page) => ['Reset', 'Archive', 'Breach', 'Payout', 'Show credentials', 'Assign'].map((name) => button(page, name)),
    managers: ['owner', 'admin'],
  },
  {
    name: 'programs',
    path: () => '/panel/programs',
    async check(page) {
      await page.getByRole('heading', { name: 'Programs', level: 1 }).waitFor();
      await page.getByText(/Programs could not be loaded|Programs/).first().waitFor();
    },
    managementControls: (page) => [button(page, 'New program')],
    managers: ['owner', 'admin'],
  },
  {
    name: 'webhooks',
    path: () => '/panel/webhooks',
    async check(page) {
      await page.getByRole('table', { name: 'Webhooks' }).getByRole('link', { name: 'https://127.0.0.1:9/seeded' }).waitFor();
    },
    managementControls: (page) => [button(page, 'Register')],
    managers: ['owner', 'admin'],
  },
  {
    name: 'webhook',
    path: (seed) => `/panel/webhooks/${seed.webhookId}`,
    async check(page) {
      await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
      await page.getByRole('table', { name: 'Deliveries' }).waitFor();
    },
    managementControls: (page) => [button(page, 'Send test event'), button(page, 'Rotate secret'), button(page, 'Delete')],
    managers: ['owner', 'admin'],
  },
  {
    name: 'events',
    path: () => '/panel/events',
    async check(page) {
      await page.getByRole('combobox', { name: 'Type' }).waitFor();
      await page.getByRole('table', { name: 'Events' }).getByText('account.created').first().waitFor();
    },
    managementControls: () => [],
    managers: [],
  },
  {
    name: 'api-keys',
    path: () => '/panel/api-keys',
    async check(page) {
      await page.getByRole('table', { name: 'API keys' }).getByRole('cell', { name: 'seeded key', exact: true }).waitFor();
    },
    managementControls: (page) => [button(page, 'Create key'), page.getByRole('button', { name: /^Revoke key/ }), page.getByRole('button', { name: /^Roll key/ })],
    managers: ['owner', 'admin'],
  },
  {
    name: 'team',
    path: () => '/panel/team',
    async check(page) {
      await page.getByRole('table', { name: 'Team' }).getByRole('cell', { name: /^owner@pages\.example/ }).waitFor();
    },
    managementControls: (page) => [button(page, 'Add user'), page.getByRole('button', { name: /^Remove / }).first()],
    managers: ['owner'],
  },
];

describe('the panel in Chromium: every page for every role, at 1280×800 and 390×844', () => {
  let stack: Stack;
  let builtPanel: TestLock | undefined;
  let browser: Browser;
  let orgId = '';
  const seed: Seed = { accounts: [], traded: 0, webhookId: '' };
  const pages = new Map<string, Page>();
  const contexts: BrowserContext[] = [];

  async function seedTrading(number: number): Promise<void> {
    const trading = stack.admin.trading.call;
    const quote = (bid: number, ask: number) => trading.publishQuote({ quote: { symbol: 'EURUSD', bid, ask, time: new Date() } });
    for (let i = 0; i < 3; i += 1) {
      await quote(1.1, 1.1);
      const { position } = await trading.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(number), symbol: 'EURUSD', side: tradingv1.Side.SIDE_BUY, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
      await quote(1.1 + (i - 1) * 0.002, 1.1 + (i - 1) * 0.002);
      await trading.closePosition({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(number), positionId: position?.id ?? '' });
    }
    await trading.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(number), symbol: 'EURUSD', side: tradingv1.Side.SIDE_SELL, volume: 2, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
    await trading.breachAccount({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(number), reason: 'copy trading across accounts' });
  }

  beforeAll(async () => {
    // Served from services/panel/dist/web: wait while npm start builds it again (a long wait: 180 s).
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack({ env: { WEBHOOK_RETRY_SCHEDULE: '1' } });
    orgId = (await stack.createOrg({ name: 'Pages Firm', credits: 50 })).id;
    for (const role of ['owner', 'admin', 'member'] as const) await stack.createUser(orgId, { email: `${role}@pages.example`, password: PASSWORD, role });
    seed.accounts = await stack.createAccounts(orgId, 3);
    seed.traded = seed.accounts[1] ?? 0;
    await stack.admin.accounts.call.assignTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(seed.accounts[0]), name: HOSTILE_NAME, email: 'eve@traders.example' });
    await seedTrading(seed.traded);
    const endpoint = await stack.admin.webhooks.call.createEndpoint({ organizationId: orgId, mode: Mode.MODE_LIVE, url: 'https://127.0.0.1:9/seeded', events: [] });
    seed.webhookId = endpoint.endpoint?.id ?? '';
    await stack.createKey(orgId, ['accounts:read'], 'seeded key');
    browser = await launchChromium();
    for (const role of ['owner', 'admin', 'member'] as const) {
      for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
        const context = await openContext(browser, viewport);
        contexts.push(context);
        const page = await context.newPage();
        await signIn(page, stack.url, `${role}@pages.example`, PASSWORD);
        pages.set(`${role}/${viewport}`, page);
      }
    }
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  describe.each(['owner', 'admin', 'member'] as const)('as %s', (role) => {
    it.each(PAGES.map((spec) => [spec.name, spec] as const))('%s opens from its URL with what the role may use', async (_name, spec) => {
      for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
        const page = pages.get(`${role}/${viewport}`) as Page;
        // A pasted link or a reload: the URL alone opens the page.
        await page.goto(`${stack.url}${spec.path(seed)}`);
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        await spec.check(page, seed);
        const controls = spec.managementControls(page);
        if (spec.managers.includes(role)) {
          for (const control of controls) await control.first().waitFor();
        } else {
          for (const control of controls) expect(await control.count()).toBe(0);
        }
        await screenshot(page, `${role}-${spec.name}-${viewport}`);
        expect({ page: spec.name, viewport, overflow: await horizontalOverflow(page) }).toEqual({ page: spec.name, viewport, overflow: 0 });
        expect(await pwned(page)).toBe(false);
      }
    });
  });
});
