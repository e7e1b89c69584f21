/**
 * Numbers are taken exactly as the client wrote them or refused: a volume that is not a positive
 * multiple of the lot step, a price with more decimals than the instrument quotes, an amount in
 * fractions of a cent, a count that is not whole: 400 naming the field, never rounded. The
 * services refuse the same for gRPC callers.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';
import { AppError, Mode } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';

interface Position {
  id: string;
  volume: number;
  price?: number | null;
  stop_loss: number | null;
  take_profit: number | null;
}

let stack: Stack;
let api: ReturnType<typeof client>;
let orgId: string;
let number: number;

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg()).id;
  api = client(stack.url, (await stack.createKey(orgId)).token);
  [number] = (await stack.createAccounts(orgId, 1)) as [number];
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1002, time: new Date() } });
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'USDJPY', bid: 150.1, ask: 150.12, time: new Date() } });
});

afterAll(async () => {
  await stack?.stop();
});

const order = (body: Record<string, unknown>) =>
  api.post<Position & ErrorBody>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'EURUSD', side: 'buy', ...body } });

describe('order volumes', () => {
  it.each([1e-9, 1e-7, 0.001, 0.005, 0.015, 1.005, 0.1 + 0.2, 2.0000001, 5e-324, 0, -0.01, -1])('refuses volume %p with 400 naming volume', async (volume) => {
    const res = await order({ volume });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'volume' });
  });

  it('refuses a zero-lot order written as a raw JSON literal', async () => {
    for (const literal of ['1e-9', '0.000', '1E-2000', '0.00999', '-0', '0.0099999999999999999', '1.0000000000000000001', '1e400']) {
      const res = await api.post<ErrorBody>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, {
        body: `{"symbol":"EURUSD","side":"buy","volume":${literal}}`,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('volume');
    }
  });

  it.each([0.01, 0.07, 0.29, 1.1, 1.15, 2.01])('takes volume %p exactly as sent', async (volume) => {
    const res = await order({ volume, type: 'limit', price: 1.05 });
    expect(res.status).toBe(201);
    expect(res.body.volume).toBe(volume);
  });

  it('refuses the same volumes from a gRPC caller (INVALID_ARGUMENT naming volume)', async () => {
    for (const volume of [1e-9, 0.015, 0.1 + 0.2]) {
      const error = await stack.admin.trading.call
        .placeOrder({
          organizationId: orgId,
          mode: Mode.MODE_LIVE,
          number: String(number),
          symbol: 'EURUSD',
          side: tradingv1.Side.SIDE_BUY,
          type: tradingv1.OrderType.ORDER_TYPE_MARKET,
          volume,
        })
        .then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'invalid_request', param: 'volume' });
    }
  });
});

describe('prices against the instrument', () => {
  it.each([
    ['price', { type: 'limit', price: 1.050001 }],
    ['price', { type: 'limit', price: 1.0500001 }],
    ['stop_loss', { stop_loss: 1.0000001 }],
    ['take_profit', { take_profit: 1.2000005 }],
  ])('refuses a %s with more decimals than EURUSD quotes (5)', async (param, extra) => {
    const res = await order({ volume: 0.1, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('refuses a USDJPY price finer than its 3 digits, and takes one at them', async () => {
    const finer = await order({ symbol: 'USDJPY', volume: 0.1, type: 'limit', price: 149.1234 });
    expect(finer.status).toBe(400);
    expect(finer.body.error.param).toBe('price');
    const exact = await order({ symbol: 'USDJPY', volume: 0.1, type: 'limit', price: 149.123, stop_loss: 148.001, take_profit: 151.5 });
    expect(exact.status).toBe(201);
    expect(exact.body).toMatchObject({ stop_loss: 148.001, take_profit: 151.5 });
  });

  it('refuses a gRPC caller the same prices', async () => {
    const error = await stack.admin.trading.call
      .placeOrder({
        organizationId: orgId,
        mode: Mode.MODE_LIVE,
        number: String(number),
        symbol: 'EURUSD',
        side: tradingv1.Side.SIDE_BUY,
        type: tradingv1.OrderType.ORDER_TYPE_LIMIT,
        volume: 0.1,
        price: 1.050001,
      })
      .then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'price' });
  });

  it('refuses a published quote finer than the instrument quotes', async () => {
    const error = await stack.admin.trading.call
      .publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1000001, ask: 1.1002, time: new Date() } })
      .then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ code: 'invalid_request' });
  });
});

describe('amounts and counts', () => {
  it.each([
    ['initial_balance', { count: 1, initial_balance: 1000.005 }],
    ['initial_balance', { count: 1, initial_balance: 1e-9 }],
    ['initial_balance', { count: 1, initial_balance: 0.001 }],
    ['count', { count: 1.5 }],
    ['count', { count: 1e-9 }],
  ])('refuses %s that rounding would change', async (param, body) => {
    const res = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it.each([1000.1, 1234.56, 0.29, 50000.07])('provisions with initial_balance %p exactly', async (initial) => {
    const res = await api.post<{ data: Array<{ initial_balance: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, initial_balance: initial } });
    expect(res.status).toBe(201);
    expect(res.body.data[0]?.initial_balance).toBe(initial);
  });

  it('refuses an amount or count written with more digits than a JSON number keeps', async () => {
    for (const body of ['{"count":1,"initial_balance":1000.0000000000000001}', '{"count":1.0000000000000001}', '{"count":1,"initial_balance":99999.99999999999999}']) {
      const res = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body });
      expect([body, res.status]).toEqual([body, 400]);
      expect(['count', 'initial_balance']).toContain(res.body.error.param);
    }
  });

  it('refuses a gRPC caller a balance in fractions of a cent', async () => {
    const error = await stack.admin.accounts.call
      .createAccounts({ organizationId: orgId, mode: Mode.MODE_LIVE, count: 1, program: '', initialBalance: 100.001 })
      .then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'initial_balance' });
  });
});
