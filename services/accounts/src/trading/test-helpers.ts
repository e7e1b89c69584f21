import { QueryTypes, type Sequelize } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { PromiseClient } from '../grpc/typed';

type Api = PromiseClient<accountsv1.AccountsServiceClient>;

export const BUY = accountsv1.Side.SIDE_BUY;
export const SELL = accountsv1.Side.SIDE_SELL;
export const MARKET = accountsv1.OrderType.ORDER_TYPE_MARKET;
export const LIMIT = accountsv1.OrderType.ORDER_TYPE_LIMIT;

/** Test helpers for the trading suites: quotes, orders and what the outbox holds. */
export function tradingHelpers(api: Api, sql: Sequelize) {
  return {
    async quote(symbol: string, bid: number, ask: number): Promise<void> {
      await api.publishQuote({ quote: { symbol, bid, ask } });
    },
    async account(org: string, number: string): Promise<accountsv1.Account> {
      const { account } = await api.getAccount({ organizationId: org, number });
      if (!account) throw new Error('no account');
      return account;
    },
    async newAccounts(org: string, count: number): Promise<string[]> {
      const { accounts } = await api.createAccounts({ organizationId: org, count, program: '', initialBalance: 0 });
      return accounts.map((a) => a.number);
    },
    async order(org: string, number: string, fields: Partial<accountsv1.PlaceOrderRequest>): Promise<accountsv1.Position> {
      const { position } = await api.placeOrder({ organizationId: org, number, symbol: 'EURUSD', side: BUY, volume: 1, type: MARKET, ...fields });
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
