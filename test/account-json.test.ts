/**
 * One JSON form per object: GET /v1/accounts renders its page in PostgreSQL (the list fast path)
 * and GET /v1/accounts/{number} in the gateway (JSON.stringify); a client comparing or caching
 * the raw text must see the same bytes for the same account in both.
 */
import { Mode } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { startStack, type Stack } from './support/stack';
import { client } from './support/http';

interface Account {
  number: number;
  status: string;
  next_account: number | null;
}

let stack: Stack;
let api: ReturnType<typeof client>;
let orgId = '';

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 20 })).id;
  api = client(stack.url, (await stack.createKey(orgId, ['accounts:read', 'accounts:write', 'trading:write'])).token);
});

afterAll(async () => {
  await stack?.stop();
});

const quote = (price: number) => stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: price, ask: price, time: new Date() } });

it('writes every account of the list byte for byte as its own answer writes it', async () => {
  // Cents, a phase name that JSON must escape, a passed account with its next phase, a trader, a breach.
  const program = {
    name: 'json-form',
    initial_balance: 12345.67,
    phases: [
      { name: 'Étape "un" \\ 1', kind: 'evaluation', profit_target_pct: 1, max_daily_loss_pct: 5, max_total_loss_pct: 10 },
      { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 },
    ],
  };
  expect((await api.post('/v1/programs', '/v1/programs', { body: program })).status).toBe(201);
  const created = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 2, program: 'json-form' } });
  const standard = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 2, initial_balance: 100000 } });
  const [passing, untouched] = created.body.data.map((a) => a.number);
  const [assigned, breached] = standard.body.data.map((a) => a.number);

  await quote(1.1);
  const order = { symbol: 'EURUSD', side: 'buy', volume: 0.5, type: 'market' };
  expect((await api.post('/v1/accounts/{number}/positions', `/v1/accounts/${passing}/positions`, { body: order })).status).toBe(201);
  await quote(1.1037);
  const passed = await api.get<Account>('/v1/accounts/{number}', `/v1/accounts/${passing}`);
  expect(passed.body).toMatchObject({ status: 'passed', next_account: expect.any(Number) });
  await api.put('/v1/accounts/{number}/trader', `/v1/accounts/${assigned}/trader`, { body: { name: 'Zoë Trader', email: 'zoe@traders.example' } });
  await stack.admin.trading.call.placeOrder({ organizationId: orgId, mode: Mode.MODE_LIVE, number: String(breached), symbol: 'EURUSD', side: tradingv1.Side.SIDE_SELL, volume: 1, type: tradingv1.OrderType.ORDER_TYPE_MARKET });
  await api.post('/v1/accounts/{number}/breach', `/v1/accounts/${breached}/breach`, { body: { reason: 'copy trading' } });

  const list = await api.get<{ data: Account[] }>('/v1/accounts', '/v1/accounts?limit=200');
  const numbers = list.body.data.map((a) => a.number);
  expect(numbers).toEqual(expect.arrayContaining([passing, untouched, assigned, breached, passed.body.next_account]));
  const singles: string[] = [];
  for (const number of numbers) singles.push((await api.get('/v1/accounts/{number}', `/v1/accounts/${number}`)).text);
  expect(list.text).toBe(`{"data":[${singles.join(',')}],"next_cursor":null}`);
  // The canonical form is JSON.stringify's: whole amounts without decimals, compact nested objects.
  expect(list.text).toContain('"initial_balance":12345.67,');
  expect(list.text).toContain('"initial_balance":100000,');
  expect(list.text).toContain('"phase":{"index":1,"name":"Funded","kind":"funded"}');
  expect(list.text).toContain(String.raw`"name":"Étape \"un\" \\ 1"`);
});
