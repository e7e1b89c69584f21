import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Mode, payoutDecider } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { BUILT_PANEL, holdTestLock, type TestLock } from '@propdesk/kit/testing';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, openContext, screenshot, signIn } from './browser';
import { panelClient } from './panel-client';

const PASSWORD = 'correct horse battery';
const live = { mode: Mode.MODE_LIVE };

/**
 * SPEC 14 in the panel: the Payouts page (the pending queue, Approve and Reject with a reason) and
 * the account page's operator controls (Halt/Resume, Reinstate, Adjust balance), each confirmed,
 * for owners and admins; a member sees none of them and the panel API refuses them (403).
 */
describe('the panel: payouts and operator controls', () => {
  let stack: Stack;
  let call: ReturnType<typeof panelClient>;
  let orgId = '';
  let owner = { id: '', email: '', password: '' };
  let member = { id: '', email: '', password: '' };
  const cookies = { owner: '', member: '' };
  let browser: Browser;
  let builtPanel: TestLock | undefined;

  beforeAll(async () => {
    builtPanel = await holdTestLock(BUILT_PANEL, 'shared');
    stack = await startStack();
    call = panelClient(stack.url);
    orgId = (await stack.createOrg({ name: 'Operations Firm', credits: 100 })).id;
    owner = await stack.createUser(orgId, { email: 'owner@ops.example', password: PASSWORD, role: 'owner' });
    member = await stack.createUser(orgId, { email: 'member@ops.example', password: PASSWORD, role: 'member' });
    cookies.owner = await stack.panelLogin(owner.email, PASSWORD);
    cookies.member = await stack.panelLogin(member.email, PASSWORD);
    await stack.admin.accounts.call.createProgram({
      organizationId: orgId,
      ...live,
      program: {
        name: 'approved-payouts',
        initial_balance: 50000,
        phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, payout_requires_approval: true }],
      },
    });
    await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1 } });
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await builtPanel?.release();
  });

  /** A funded account with closed profit and a pending payout of `amount` (through gRPC, as any caller). */
  async function pendingPayout(amount: number): Promise<{ number: string; id: string }> {
    const { accounts } = await stack.admin.accounts.call.createAccounts({ organizationId: orgId, ...live, count: 1, program: 'approved-payouts', initialBalance: 0 });
    const number = accounts[0].number;
    await stack.admin.trading.call.adjustBalance({ organizationId: orgId, ...live, number, amount, reason: 'profit' });
    const { payout } = await stack.admin.trading.call.createPayout({ organizationId: orgId, ...live, number, amount });
    if (!payout) throw new Error('no payout');
    return { number, id: payout.id };
  }
  const payoutStatus = async (id: string) => (await stack.admin.trading.call.getPayout({ organizationId: orgId, ...live, payoutId: id })).payout;
  const accountOf = async (number: string | number) => (await stack.admin.accounts.call.getAccount({ organizationId: orgId, ...live, number: String(number) })).account;

  describe('the panel API', () => {
    it('lets every signed-in user read the payouts, and refuses a member every decision and control with 403 forbidden', async () => {
      const payout = await pendingPayout(300);
      const list = await call<{ data: Array<{ id: string; status: string }> }>('GET', '/panel/api/payouts?status=pending', { cookie: cookies.member });
      expect(list.status).toBe(200);
      expect(list.body.data.map((p) => p.id)).toContain(payout.id);
      const [n] = await stack.createAccounts(orgId, 1);
      for (const [path, body] of [
        [`/panel/api/payouts/${payout.id}/approve`, {}],
        [`/panel/api/payouts/${payout.id}/reject`, { reason: 'no' }],
        [`/panel/api/accounts/${n}/halt`, { reason: 'incident' }],
        [`/panel/api/accounts/${n}/resume`, {}],
        [`/panel/api/accounts/${n}/reinstate`, { reason: 'review' }],
        [`/panel/api/accounts/${n}/adjustments`, { amount: 10, reason: 'refund' }],
      ] as const) {
        const res = await call('POST', path, { cookie: cookies.member, body });
        expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 403, code: 'forbidden' });
      }
      expect((await payoutStatus(payout.id))?.status).toBe(tradingv1.PayoutStatus.PAYOUT_STATUS_PENDING);
      expect(await accountOf(n)).toMatchObject({ tradingHalted: false, balance: 100000 });
    });

    it("records the owner as the payout's decider, and answers bad input 400 naming the field", async () => {
      const payout = await pendingPayout(200);
      const approved = await call<{ status: string; decided_by: unknown }>('POST', `/panel/api/payouts/${payout.id}/approve`, { cookie: cookies.owner, body: {} });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved', decided_by: { type: 'user', id: owner.id } });
      const again = await call('POST', `/panel/api/payouts/${payout.id}/approve`, { cookie: cookies.owner, body: {} });
      expect([again.status, again.body.error?.code]).toEqual([409, 'conflict']);
      const [n] = await stack.createAccounts(orgId, 1);
      const zero = await call('POST', `/panel/api/accounts/${n}/adjustments`, { cookie: cookies.owner, body: { amount: 0, reason: 'x' } });
      expect([zero.status, zero.body.error?.param]).toEqual([400, 'amount']);
      const noReason = await call('POST', `/panel/api/accounts/${n}/halt`, { cookie: cookies.owner, body: {} });
      expect([noReason.status, noReason.body.error?.param]).toEqual([400, 'reason']);
    });
  });

  describe('in Chromium', () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await openContext(browser, 'desktop');
      page = await context.newPage();
      await signIn(page, stack.url, owner.email, PASSWORD);
    });
    afterAll(async () => {
      await context?.close();
    });

    const table = (name: string) => page.getByRole('table', { name, exact: true });

    it('an owner approves one pending payout and rejects another with a reason on the Payouts page', async () => {
      const first = await pendingPayout(300);
      const second = await pendingPayout(450);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts', exact: true }).click();
      await page.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
      const approve = table('Payouts').getByRole('button', { name: `Approve the payout of 300.00 USD for account ${first.number}` });
      await approve.waitFor();
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
      });
      await approve.click();
      await approve.waitFor({ state: 'detached' });
      expect(asked).toContain(`Approve the payout of 300.00 USD for account ${first.number}`);
      expect(await payoutStatus(first.id)).toMatchObject({ status: tradingv1.PayoutStatus.PAYOUT_STATUS_APPROVED, decidedBy: payoutDecider('user', owner.id) });

      await table('Payouts').getByRole('button', { name: `Reject the payout of 450.00 USD for account ${second.number}` }).click();
      await page.getByRole('button', { name: 'Reject payout' }).click();
      await page.getByText('Give the reason for the rejection.').waitFor();
      await page.getByLabel('Rejection reason').fill('profit from a pricing error');
      await page.getByRole('button', { name: 'Reject payout' }).click();
      await page.getByRole('button', { name: 'Reject payout' }).waitFor({ state: 'detached' });
      expect(await payoutStatus(second.id)).toMatchObject({ status: tradingv1.PayoutStatus.PAYOUT_STATUS_REJECTED, reason: 'profit from a pricing error' });

      await page.getByRole('combobox', { name: 'Status' }).selectOption('rejected');
      await table('Payouts').getByRole('cell', { name: /profit from a pricing error/ }).waitFor();
      expect(new URL(page.url()).search).toBe('?status=rejected');
      await screenshot(page, 'operations-payouts');
    });

    it("an owner halts and resumes an account, adjusts its balance, and reinstates it after a breach, each confirmed", async () => {
      const [n] = await stack.createAccounts(orgId, 1);
      await page.goto(`${stack.url}/panel/accounts/${n}`);
      await page.getByRole('heading', { name: `Account ${n}` }).waitFor();

      await page.getByRole('button', { name: 'Halt', exact: true }).click();
      await page.getByText('Give the reason for the halt.').waitFor();
      await page.getByLabel('Halt reason').fill('incident on the price feed');
      await page.getByRole('button', { name: 'Halt', exact: true }).click();
      await page.getByRole('status').getByText(`Trading on account ${n} is halted.`).waitFor();
      expect((await accountOf(n))?.tradingHalted).toBe(true);
      await page.getByText('halted', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Resume', exact: true }).click();
      await page.getByRole('status').getByText(`Trading on account ${n} is resumed.`).waitFor();
      expect((await accountOf(n))?.tradingHalted).toBe(false);

      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
      });
      await page.getByLabel('Adjustment amount').fill('-1234.5');
      await page.getByLabel('Adjustment reason').fill('chargeback');
      await page.getByRole('button', { name: 'Adjust balance' }).click();
      await page.getByRole('status').getByText('Balance adjusted by -1,234.50 USD: it is 98,765.50 USD now.').waitFor();
      expect(asked).toContain(`Debit 1,234.50 USD from account ${n}`);
      expect((await accountOf(n))?.balance).toBe(98765.5);
      await table('Trades').getByRole('cell', { name: 'Balance adjustment' }).waitFor();

      await stack.admin.trading.call.breachAccount({ organizationId: orgId, ...live, number: String(n), reason: 'suspected hedging' });
      await page.reload();
      await page.getByLabel('Reinstatement reason').fill('cleared after review');
      await page.getByRole('button', { name: 'Reinstate', exact: true }).click();
      await page.getByRole('status').getByText(`Account ${n} is active again.`).waitFor();
      expect((await accountOf(n))?.status).toBe(1);
      await table('Flags and breaches').getByText(/Reinstated .*: cleared after review/).waitFor();
      expect(await page.getByRole('button', { name: 'Reinstate', exact: true }).count()).toBe(0);
      await screenshot(page, 'operations-account-controls');
    });

    it('a member sees the payouts but no Approve, Reject or account controls', async () => {
      const payout = await pendingPayout(120);
      const memberContext = await openContext(browser, 'desktop');
      try {
        const memberPage = await memberContext.newPage();
        await signIn(memberPage, stack.url, member.email, PASSWORD, '/panel/payouts');
        await memberPage.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
        await memberPage.getByRole('table', { name: 'Payouts', exact: true }).getByRole('link', { name: payout.number }).waitFor();
        expect(await memberPage.getByRole('button', { name: /^Approve|^Reject/ }).count()).toBe(0);
        await memberPage.goto(`${stack.url}/panel/accounts/${payout.number}`);
        await memberPage.getByRole('heading', { name: `Account ${payout.number}` }).waitFor();
        await memberPage.getByRole('table', { name: 'Payouts', exact: true }).waitFor();
        for (const name of ['Halt', 'Resume', 'Reinstate', 'Adjust balance', 'Payout']) {
          expect(await memberPage.getByRole('button', { name, exact: true }).count()).toBe(0);
        }
        expect(await memberPage.getByLabel('Adjustment amount').count()).toBe(0);
        await screenshot(memberPage, 'operations-member');
      } finally {
        await memberContext.close();
      }
    });
  });
});
