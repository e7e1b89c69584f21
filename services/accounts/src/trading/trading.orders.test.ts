import { Mode } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import type { Harness } from '../test/harness';
import { expectCode, LIMIT, SELL, startTradingSuite, type TradingHelpers } from '../test/trading-helpers';

/** Orders and positions through TradingService: fills, closes, refusals, flags, resting orders, stop losses and take profits. */
let h: Harness;
let t: TradingHelpers;
let org: string;

beforeAll(async () => ({ h, t, org } = await startTradingSuite()));
afterAll(() => h.close());

describe('orders and positions', () => {
  it('a market buy fills at the ask, floats at the bid, and its close books the deal into the balance', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('EURUSD', 1.0998, 1.1);
    const opened = await t.order(org, n, { volume: 1 });
    expect(opened).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_OPEN, openPrice: 1.1, symbol: 'EURUSD' });
    // Marked at the bid at once: the spread (0.0002 x 100,000) shows in the account's equity.
    expect(await t.account(org, n)).toMatchObject({ balance: 100_000, equity: 99_980 });

    await t.quote('EURUSD', 1.094, 1.0942);
    expect(await t.account(org, n)).toMatchObject({ balance: 100_000, equity: 99_400 });
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '', status: tradingv1.PositionStatus.POSITION_STATUS_OPEN });
    expect(positions[0].floatingProfit).toBe(-600);
    // The price it is marked at: the bid, for a buy.
    expect(positions[0].currentPrice).toBe(1.094);

    const { position: closed } = await h.trading.closePosition({ organizationId: org, mode: Mode.MODE_LIVE, number: n, positionId: opened.id });
    expect(closed).toMatchObject({ status: tradingv1.PositionStatus.POSITION_STATUS_CLOSED, closePrice: 1.094, profit: -600, closeReason: 'manual' });
    expect(closed?.currentPrice).toBeUndefined();
    expect(await t.account(org, n)).toMatchObject({ balance: 99_400, equity: 99_400 });
    const { deals } = await h.trading.listTrades({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '' });
    expect(deals).toEqual([expect.objectContaining({ positionId: opened.id, profit: -600, balanceAfter: 99_400, closeReason: 'manual' })]);
    expect(await t.events(n, 'position.opened')).toEqual([expect.objectContaining({ position_id: opened.id, open_price: 1.1 })]);
    expect(await t.events(n, 'position.closed')).toEqual([
      expect.objectContaining({ position_id: opened.id, symbol: 'EURUSD', side: 'buy', volume: 1, open_price: 1.1, close_price: 1.094, profit: -600, reason: 'manual' }),
    ]);
    await expectCode(h.trading.closePosition({ organizationId: org, mode: Mode.MODE_LIVE, number: n, positionId: opened.id }), 'conflict');
  });

  it('bad input is refused with a code naming the problem', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('EURUSD', 1.1, 1.1002);
    await expectCode(t.order(org, n, { symbol: 'DOGEUSD' }), 'invalid_request', 'symbol');
    await expectCode(t.order(org, n, { volume: 0 }), 'invalid_request', 'volume');
    await expectCode(t.order(org, n, { volume: -1 }), 'invalid_request', 'volume');
    await expectCode(t.order(org, n, { volume: 0.001 }), 'invalid_request', 'volume');
    await expectCode(t.order(org, n, { side: tradingv1.Side.SIDE_UNSPECIFIED }), 'invalid_request', 'side');
    await expectCode(t.order(org, n, { type: 99 as tradingv1.OrderType }), 'invalid_request', 'type');
    await expectCode(t.order(org, n, { type: LIMIT, price: 1.2 }), 'invalid_request', 'price');
    await expectCode(t.order(org, n, { type: LIMIT }), 'invalid_request', 'price');
    await expectCode(t.order(org, n, { stopLoss: 1.2 }), 'invalid_request', 'stop_loss');
    await expectCode(t.order(org, n, { side: SELL, takeProfit: 1.2 }), 'invalid_request', 'take_profit');
    await expectCode(t.order(h.newOrg(), n, {}), 'not_found');
    await expectCode(h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.2, ask: 1.1 } }), 'invalid_request', 'quote.bid');
    await expectCode(h.trading.publishQuote({ quote: { symbol: 'EURUSD', bid: Number.NaN, ask: 1.1 } }), 'invalid_request', 'quote.bid');
    await expectCode(h.trading.publishQuote({ quote: { symbol: 'XXX', bid: 1, ask: 1 } }), 'invalid_request', 'quote.symbol');
    await expectCode(h.trading.getReport({ organizationId: 'nope', mode: Mode.MODE_LIVE, number: n }), 'invalid_request', 'organization_id');
  });

  it('pre-order rules refuse with order_rejected and the order.rejected event still commits', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('XAUUSD', 2350, 2350.3);
    await expectCode(t.order(org, n, { volume: 60 }), 'order_rejected');
    // 50 lots of gold at 2350.30: 117,515 of margin at 1:100 on a 100,000 account.
    await expectCode(t.order(org, n, { symbol: 'XAUUSD', volume: 50 }), 'order_rejected');
    await t.setTerms(n, { allowedSymbols: ['EURUSD'] });
    await expectCode(t.order(org, n, { symbol: 'XAUUSD', volume: 1 }), 'order_rejected');
    const rejected = await t.events(n, 'order.rejected');
    expect(rejected.map((e) => e.rule)).toEqual(['max_lots_per_order', 'insufficient_margin', 'symbol_not_allowed']);
    expect(rejected[0]).toMatchObject({ account: Number(n), symbol: 'EURUSD', volume: 60, reason: expect.stringContaining('max_lots_per_order (50)') });
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '', status: 0 });
    expect(positions).toHaveLength(0);
  });

  it('an order above the flag threshold is flagged and still filled', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('EURUSD', 1.1, 1.1);
    const p = await t.order(org, n, { volume: 21 });
    expect(p.status).toBe(tradingv1.PositionStatus.POSITION_STATUS_OPEN);
    const { flags } = await h.trading.listFlags({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '' });
    expect(flags).toEqual([expect.objectContaining({ rule: 'large_order', action: 'flag' })]);
    expect(await t.events(n, 'account.flagged')).toEqual([expect.objectContaining({ account: Number(n), rule: 'large_order' })]);
    await h.trading.closePosition({ organizationId: org, mode: Mode.MODE_LIVE, number: n, positionId: p.id });
  });
});

describe('resting orders, stop loss and take profit', () => {
  it('take profit closes at its level and says why', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('GBPUSD', 1.2698, 1.27);
    const p = await t.order(org, n, { symbol: 'GBPUSD', stopLoss: 1.26, takeProfit: 1.275 });
    await t.quote('GBPUSD', 1.2752, 1.2754);
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '', status: 0 });
    expect(positions[0]).toMatchObject({ id: p.id, status: tradingv1.PositionStatus.POSITION_STATUS_CLOSED, closePrice: 1.275, profit: 500, closeReason: 'take_profit' });
    expect(await t.account(org, n)).toMatchObject({ balance: 100_500 });
    expect(await t.events(n, 'position.closed')).toEqual([expect.objectContaining({ reason: 'take_profit', profit: 500 })]);
  });

  it('a sell stop loss closes at its level', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('GBPUSD', 1.27, 1.2702);
    await t.order(org, n, { symbol: 'GBPUSD', side: SELL, volume: 2, stopLoss: 1.28 });
    await t.quote('GBPUSD', 1.2799, 1.2801);
    expect(await t.events(n, 'position.closed')).toEqual([expect.objectContaining({ reason: 'stop_loss', close_price: 1.28, profit: -2000 })]);
    expect(await t.account(org, n)).toMatchObject({ balance: 98_000, equity: 98_000 });
  });

  it('a buy limit rests, then fills at its price when the ask reaches it', async () => {
    const [n] = await t.newAccounts(org, 1);
    await t.quote('XAUUSD', 2350, 2350.3);
    const pending = await t.order(org, n, { symbol: 'XAUUSD', type: LIMIT, price: 2340, volume: 0.5 });
    expect(pending.status).toBe(tradingv1.PositionStatus.POSITION_STATUS_PENDING);
    expect(await t.events(n, 'position.opened')).toHaveLength(0);
    await t.quote('XAUUSD', 2339.7, 2340);
    const { positions } = await h.trading.listPositions({ organizationId: org, mode: Mode.MODE_LIVE, number: n, pageSize: 0, pageToken: '', status: tradingv1.PositionStatus.POSITION_STATUS_OPEN });
    expect(positions).toEqual([expect.objectContaining({ id: pending.id, openPrice: 2340 })]);
    expect(await t.events(n, 'position.opened')).toEqual([expect.objectContaining({ position_id: pending.id, open_price: 2340 })]);
  });
});
