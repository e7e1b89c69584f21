/**
 * Issue 5's REST side: orders and positions with an API key and with an executor session, the
 * read endpoints, manual breach, and bad input, every answer checked against the OpenAPI document.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface Position {
  id: string;
  status: string;
  symbol: string;
  side: string;
  volume: number;
  type: string;
  open_price: number | null;
  close_price: number | null;
  profit: number | null;
}
interface Account {
  number: number;
  status: string;
  balance: number;
}

let stack: Stack;
let api: ReturnType<typeof client>;
let number: number;

async function quote(symbol: string, bid: number, ask: number): Promise<void> {
  await stack.admin.trading.call.publishQuote({ quote: { symbol, bid, ask, time: new Date() } });
}

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  api = client(stack.url, (await stack.createKey(org.id)).token);
  [number] = (await stack.createAccounts(org.id, 1)) as [number];
  await quote('EURUSD', 1.1, 1.1002);
});

afterAll(async () => {
  await stack?.stop();
});

const positionsPath = () => `/v1/accounts/${number}/positions`;

describe('orders and positions with an API key', () => {
  it('opens a market buy at the ask (201) and closes it (200, closed, with profit)', async () => {
    const open = await api.post<Position>('/v1/accounts/{number}/positions', positionsPath(), { body: { symbol: 'EURUSD', side: 'buy', volume: 1 } });
    expect(open.status).toBe(201);
    expect(open.body).toMatchObject({ status: 'open', symbol: 'EURUSD', side: 'buy', volume: 1, type: 'market', open_price: 1.1002 });

    const list = await api.get<{ data: Position[] }>('/v1/accounts/{number}/positions', `${positionsPath()}?status=open`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p) => p.id)).toContain(open.body.id);

    await quote('EURUSD', 1.101, 1.1012);
    const closed = await api.post<Position>('/v1/accounts/{number}/positions/{id}/close', `${positionsPath()}/${open.body.id}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe('closed');
    expect(closed.body.close_price).toBe(1.101);
    expect(closed.body.profit).toBeCloseTo(80, 6);

    const trades = await api.get<{ data: Array<{ position_id: string }> }>('/v1/accounts/{number}/trades', `/v1/accounts/${number}/trades`);
    expect(trades.status).toBe(200);
    expect(trades.body.data.map((d) => d.position_id)).toContain(open.body.id);
  });

  it('rests a limit order as pending', async () => {
    const res = await api.post<Position>('/v1/accounts/{number}/positions', positionsPath(), {
      body: { symbol: 'EURUSD', side: 'buy', volume: 0.5, type: 'limit', price: 1.05 },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
  });

  it.each([
    [{ symbol: 'EURUSD', side: 'hold', volume: 1 }, 'side'],
    [{ symbol: 'EURUSD', side: 'buy', volume: 0 }, 'volume'],
    [{ symbol: 'EURUSD', side: 'buy', volume: 'one' }, 'volume'],
    [{ symbol: 'EURUSD', side: 'buy', volume: 1, type: 'iceberg' }, 'type'],
    [{ symbol: 'EURUSD', side: 'buy', volume: 1, type: 'limit' }, 'price'],
    [{ side: 'buy', volume: 1 }, 'symbol'],
  ])('answers order %j 400 naming %s', async (body, param) => {
    const res = await api.post<ErrorBody>('/v1/accounts/{number}/positions', positionsPath(), { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('answers an order over the per-order volume 422 order_rejected', async () => {
    const res = await api.post<ErrorBody>('/v1/accounts/{number}/positions', positionsPath(), { body: { symbol: 'EURUSD', side: 'sell', volume: 60 } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('order_rejected');
  });

  it('serves flags, analytics, equity and the report', async () => {
    for (const [template, suffix] of [
      ['/v1/accounts/{number}/flags', 'flags'],
      ['/v1/accounts/{number}/analytics', 'analytics'],
      ['/v1/accounts/{number}/equity', 'equity'],
      ['/v1/accounts/{number}/report', 'report'],
    ] as const) {
      const res = await api.get(template, `/v1/accounts/${number}/${suffix}`);
      expect(res.status).toBe(200);
    }
  });
});

describe('trading with an executor session', () => {
  it('lets the trader open, list and close positions on the session account only', async () => {
    const creds = await api.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
    const session = await client(stack.url).post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', {
      body: { account: number, password: creds.body.password },
    });
    const trader = client(stack.url, session.body.token);
    const open = await trader.post<Position>('/v1/executor/positions', '/v1/executor/positions', { body: { symbol: 'EURUSD', side: 'sell', volume: 0.1 } });
    expect(open.status).toBe(201);
    expect(open.body.open_price).toBe(1.101);
    const list = await trader.get<{ data: Position[] }>('/v1/executor/positions');
    expect(list.body.data.map((p) => p.id)).toContain(open.body.id);
    const closed = await trader.post<Position>('/v1/executor/positions/{id}/close', `/v1/executor/positions/${open.body.id}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe('closed');
  });
});

describe('manual breach', () => {
  it('breaches the account, after which orders answer 409 account_breached', async () => {
    const breach = await api.post<Account>('/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { body: { reason: 'manual review' } });
    expect(breach.status).toBe(200);
    expect(breach.body.status).toBe('breached');
    const order = await api.post<ErrorBody>('/v1/accounts/{number}/positions', positionsPath(), { body: { symbol: 'EURUSD', side: 'buy', volume: 1 } });
    expect(order.status).toBe(409);
    expect(order.body.error.code).toBe('account_breached');
  });

  it('answers a breach without a reason 400 naming reason', async () => {
    const res = await api.post<ErrorBody>('/v1/accounts/{number}/breach', `/v1/accounts/${number}/breach`, { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('reason');
  });
});
