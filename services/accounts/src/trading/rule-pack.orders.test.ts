import { Mode, QueryTypes } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { startHarness, type Harness } from '../test/harness';
import { phase } from '../test/lifecycle-helpers';
import { BUY, expectCode, MARKET, SELL, tradingHelpers, type TradingHelpers } from '../test/trading-helpers';

/**
 * SPEC 15's pre-order rules through TradingService: each refuses with order_rejected naming the
 * rule (message and order.rejected), at its edges; the news calendar of an organization and mode;
 * the order preview's verdicts and figures, which change nothing.
 */
let h: Harness;
let t: TradingHelpers;
let org: string;
const LIVE = Mode.MODE_LIVE;

beforeAll(async () => {
  h = await startHarness();
  t = tradingHelpers(h, h.sql);
  org = h.newOrg(1000);
  await t.quote('EURUSD', 1.1, 1.1001);
  await t.quote('GBPUSD', 1.27, 1.2701);
  await t.quote('XAUUSD', 2000, 2000.5);
  await t.quote('USDJPY', 150, 150.02);
});
afterAll(() => h.close());

async function accountOf(name: string, rules: Record<string, unknown>): Promise<string> {
  await h.api.createProgram({ organizationId: org, mode: LIVE, program: { name, initial_balance: 100000, phases: [phase('Evaluation', { profit_target_pct: 10, ...rules })] } });
  const { accounts } = await h.api.createAccounts({ organizationId: org, mode: LIVE, count: 1, program: name, initialBalance: 0 });
  return accounts[0].number;
}

async function refusal(number: string, fields: Partial<tradingv1.PlaceOrderRequest>): Promise<{ code?: string; message?: string; param?: string }> {
  try {
    await t.order(org, number, fields);
  } catch (err) {
    return err as { code?: string; message?: string; param?: string };
  }
  throw new Error('the order was placed');
}

async function rejectedRules(number: string): Promise<string[]> {
  return (await t.events(number, 'order.rejected')).map((e) => e.rule as string);
}

async function positions(number: string): Promise<number> {
  const [row] = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM positions WHERE account_number = :number', { replacements: { number }, type: QueryTypes.SELECT });
  return Number(row.n);
}

describe('pre-order rules', () => {
  it('max_open_positions counts open and pending positions: the order that would exceed it is refused, naming the rule', async () => {
    const n = await accountOf('two-open', { max_open_positions: 2 });
    await t.order(org, n, {});
    await t.order(org, n, { type: tradingv1.OrderType.ORDER_TYPE_LIMIT, price: 1.09 });
    const refused = await refusal(n, {});
    expect(refused).toMatchObject({ code: 'order_rejected' });
    expect(refused.param ?? undefined).toBeUndefined();
    expect(refused.message).toMatch(/^max_open_positions \(2\)/);
    expect(await rejectedRules(n)).toEqual(['max_open_positions']);
  });

  it('max_trades_per_day counts the positions opened in the trading day, closed ones too', async () => {
    const n = await accountOf('two-a-day', { max_trades_per_day: 2 });
    const first = await t.order(org, n, {});
    await h.trading.closePosition({ organizationId: org, mode: LIVE, number: n, positionId: first.id });
    await t.order(org, n, {});
    expect((await refusal(n, {})).message).toMatch(/^max_trades_per_day \(2\)/);
  });

  it('stop_loss_required and max_risk_per_trade weigh the stop loss, at the edge of the allowance', async () => {
    const sl = await accountOf('stops', { stop_loss_required: true });
    expect((await refusal(sl, {})).message).toMatch(/^stop_loss_required/);
    await t.order(org, sl, { stopLoss: 1.09 });

    const risk = await accountOf('one-percent', { max_risk_per_trade_pct: 1 });
    // Buy 1 lot at 1.1001: a stop at 1.0901 loses exactly 1,000 (1% of 100,000); a point lower, 1,001.
    await t.order(org, risk, { stopLoss: 1.0901 });
    expect((await refusal(risk, { stopLoss: 1.09 })).message).toMatch(/^max_risk_per_trade \(1%\): the order loses 1010\.00/);
    expect((await refusal(risk, {})).message).toMatch(/^max_risk_per_trade .*no stop_loss/);
    expect(await rejectedRules(risk)).toEqual(['max_risk_per_trade', 'max_risk_per_trade']);
  });

  it('news_blackout refuses a symbol either of whose currencies an event of the organization and mode lists, around its time', async () => {
    const n = await accountOf('no-news', { news_blackout_minutes: 30 });
    const now = Date.now();
    const create = (title: string, offsetMin: number, currencies: string[], organizationId = org, mode = LIVE) =>
      h.trading.createNewsEvent({ organizationId, mode, title, time: new Date(now + offsetMin * 60_000), currencies });
    // Another organization's and the test mode's events black out nothing here.
    await create('Other firm', 0, ['EUR', 'USD', 'GBP', 'JPY'], h.newOrg(0));
    await create('Test mode', 0, ['EUR', 'USD', 'GBP', 'JPY'], org, Mode.MODE_TEST);
    await t.order(org, n, { symbol: 'GBPUSD' });
    await create('ECB', 25, ['EUR']);
    await create('Far away', 45, ['GBP']);
    expect((await refusal(n, { symbol: 'EURUSD' })).message).toMatch(/^news_blackout \(30 minutes\): EURUSD is blacked out around "ECB"/);
    await t.order(org, n, { symbol: 'GBPUSD' });
    // XAUUSD: USD only.
    await create('CPI', -20, ['USD']);
    expect((await refusal(n, { symbol: 'XAUUSD', volume: 0.1 })).message).toMatch(/^news_blackout/);
    expect((await refusal(n, { symbol: 'GBPUSD' })).message).toMatch(/"CPI"/);
  });

  it('trading_hours refuses outside the window, wall time of its zone', async () => {
    // A window that is closed now whatever the time of day: one minute long, twelve hours away.
    const nowMinute = new Date().getUTCHours() * 60 + new Date().getUTCMinutes();
    const opens = (nowMinute + 720) % 1440;
    const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const closed = await accountOf('closed-now', { trading_hours: { start: hhmm(Math.min(opens, 1438)), end: hhmm(Math.min(opens, 1438) + 1), timezone: 'Etc/UTC' } });
    expect((await refusal(closed, {})).message).toMatch(/^trading_hours/);
    const open = await accountOf('open-all-day', { trading_hours: { start: '00:00', end: '23:59', timezone: 'Asia/Tokyo' } });
    if (new Date().toLocaleTimeString('en-GB', { timeZone: 'Asia/Tokyo', hour12: false }).slice(0, 5) !== '23:59') await t.order(org, open, {});
  });

  it('a program without the rule pack trades as before', async () => {
    const n = (await t.newAccounts(org, 1))[0];
    for (let i = 0; i < 5; i++) await t.order(org, n, { side: i % 2 === 0 ? BUY : SELL, type: MARKET });
    expect(await positions(n)).toBe(5);
  });
});

describe('the news calendar', () => {
  it('lists an organization\'s events of one mode in time order, filtered and paged, and deletes them', async () => {
    const own = h.newOrg(0);
    const base = Date.parse('2026-05-01T12:00:00Z');
    for (let i = 0; i < 5; i++) await h.trading.createNewsEvent({ organizationId: own, mode: LIVE, title: `e${i}`, time: new Date(base - i * 3_600_000), currencies: ['USD'] });
    await h.trading.createNewsEvent({ organizationId: own, mode: Mode.MODE_TEST, title: 'test', time: new Date(base), currencies: ['USD'] });
    const first = await h.trading.listNewsEvents({ organizationId: own, mode: LIVE, pageSize: 2, pageToken: '' });
    expect(first.newsEvents.map((e) => e.title)).toEqual(['e4', 'e3']);
    const second = await h.trading.listNewsEvents({ organizationId: own, mode: LIVE, pageSize: 2, pageToken: first.nextPageToken });
    expect(second.newsEvents.map((e) => e.title)).toEqual(['e2', 'e1']);
    const window = await h.trading.listNewsEvents({ organizationId: own, mode: LIVE, from: new Date(base - 2 * 3_600_000), to: new Date(base - 3_600_000), pageSize: 0, pageToken: '' });
    expect(window.newsEvents.map((e) => e.title)).toEqual(['e2', 'e1']);
    await expectCode(h.trading.listNewsEvents({ organizationId: own, mode: LIVE, pageSize: 2, pageToken: first.nextPageToken, from: new Date(base) }), 'invalid_cursor');
    const testOne = (await h.trading.listNewsEvents({ organizationId: own, mode: Mode.MODE_TEST, pageSize: 0, pageToken: '' })).newsEvents[0];
    await expectCode(h.trading.deleteNewsEvent({ organizationId: own, mode: LIVE, id: testOne.id }), 'not_found');
    await expectCode(h.trading.deleteNewsEvent({ organizationId: org, mode: Mode.MODE_TEST, id: testOne.id }), 'not_found');
    expect(await h.trading.deleteNewsEvent({ organizationId: own, mode: Mode.MODE_TEST, id: testOne.id })).toEqual({ id: testOne.id });
    await expectCode(h.trading.deleteNewsEvent({ organizationId: own, mode: Mode.MODE_TEST, id: testOne.id }), 'not_found');
  });

  it('refuses a currency that is not three capital letters, naming the list', async () => {
    await expectCode(h.trading.createNewsEvent({ organizationId: org, mode: LIVE, title: 'x', time: new Date(), currencies: ['USD', 'usd'] }), 'invalid_request', 'currencies');
    await expectCode(h.trading.createNewsEvent({ organizationId: org, mode: LIVE, title: 'x', time: new Date(), currencies: [] }), 'invalid_request', 'currencies');
  });
});

describe('the order preview', () => {
  it("answers every rule's verdict and the worst case, and changes nothing: no event, no position, nothing counted", async () => {
    const n = await accountOf('previewed', { max_trades_per_day: 1, max_risk_per_trade_pct: 1 });
    const preview = (fields: Partial<tradingv1.PreviewOrderRequest>) =>
      h.trading.previewOrder({ organizationId: org, mode: LIVE, number: n, symbol: 'EURUSD', side: BUY, volume: 1, type: MARKET, ...fields });
    const before = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM events', { type: QueryTypes.SELECT });
    for (let i = 0; i < 3; i++) {
      const ok = await preview({ stopLoss: 1.0951 });
      expect(ok).toEqual({
        allowed: true,
        rejections: [],
        marginRequired: 1100.1,
        freeMarginAfter: 98899.9,
        // Buy at the ask, 1.1001, stopped at 1.0951: 500 lost; equity 100,000 now (nothing open).
        worstCase: { lossAtStop: 500, dailyHeadroomAfter: 4500, totalHeadroomAfter: 9500, wouldBreach: false },
      });
    }
    const refused = await preview({ volume: 100 });
    expect(refused.allowed).toBe(false);
    expect(refused.rejections.map((r) => r.rule)).toEqual(['max_lots_per_order', 'max_risk_per_trade', 'insufficient_margin']);
    expect(refused.worstCase).toBeUndefined();
    const after = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM events', { type: QueryTypes.SELECT });
    expect(after[0].n).toBe(before[0].n);
    expect(await positions(n)).toBe(0);
    // Nothing counted: the one trade of the day is still there to place.
    await t.order(org, n, { stopLoss: 1.0951 });
    expect((await preview({ stopLoss: 1.0951 })).rejections.map((r) => r.rule)).toEqual(['max_trades_per_day']);
  });
});
