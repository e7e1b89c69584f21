import { Mode, QueryTypes, type PromiseClient, type Sequelize } from '@propdesk/kit';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import { startHarness, type Harness } from './harness';

/** One replica's clients: AccountsService and TradingService at the same address. */
interface Clients {
  api: PromiseClient<accountsv1.AccountsServiceClient>;
  trading: PromiseClient<tradingv1.TradingServiceClient>;
}

export const BUY = tradingv1.Side.SIDE_BUY;
export const SELL = tradingv1.Side.SIDE_SELL;
export const MARKET = tradingv1.OrderType.ORDER_TYPE_MARKET;
export const LIMIT = tradingv1.OrderType.ORDER_TYPE_LIMIT;

/** Test helpers for the trading suites: quotes, orders and what the outbox holds. */
export function tradingHelpers({ api, trading }: Clients, sql: Sequelize) {
  return {
    async quote(symbol: string, bid: number, ask: number): Promise<void> {
      await trading.publishQuote({ quote: { symbol, bid, ask } });
    },
    async account(org: string, number: string): Promise<accountsv1.Account> {
      const { account } = await api.getAccount({ organizationId: org, mode: Mode.MODE_LIVE, number });
      if (!account) throw new Error('no account');
      return account;
    },
    async newAccounts(org: string, count: number): Promise<string[]> {
      const { accounts } = await api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count, program: '', initialBalance: 0 });
      return accounts.map((a) => a.number);
    },
    async order(org: string, number: string, fields: Partial<tradingv1.PlaceOrderRequest>): Promise<tradingv1.Position> {
      const { position } = await trading.placeOrder({ organizationId: org, mode: Mode.MODE_LIVE, number, symbol: 'EURUSD', side: BUY, volume: 1, type: MARKET, ...fields });
      if (!position) throw new Error('no position');
      return position;
    },
    async events(number: string, type: string): Promise<Array<Record<string, unknown>>> {
      const rows = await sql.query<{ data: Record<string, unknown> }>(
        `SELECT data FROM events WHERE type = :type AND (data->>'account') = :number ORDER BY position`,
        { replacements: { type, number }, type: QueryTypes.SELECT },
      );
      return rows.map((r) => r.data);
    },
    async setTerms(number: string, terms: Record<string, unknown>): Promise<void> {
      await sql.query('UPDATE accounts SET terms = terms || :terms::jsonb WHERE number = :number', {
        replacements: { number, terms: JSON.stringify(terms) },
      });
    },
  };
}

export async function expectCode(promise: Promise<unknown>, code: string, param?: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught).toMatchObject(param ? { code, param } : { code });
}

export type TradingHelpers = ReturnType<typeof tradingHelpers>;

/** A suite's own service and database, a fresh organization with 1,000 credits, and the helpers on them. */
export async function startTradingSuite(): Promise<{ h: Harness; t: TradingHelpers; org: string }> {
  const h = await startHarness();
  return { h, t: tradingHelpers(h, h.sql), org: h.newOrg(1000) };
}
