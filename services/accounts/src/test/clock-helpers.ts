import { Mode, QueryTypes } from '@propdesk/kit';
import { waitUntil } from '@propdesk/kit/testing';
import { accountsv1, tradingv1 } from '@propdesk/proto';
import type { Harness } from './harness';

/** What the test clock suites share (SPEC 13): a test-mode organization's clocks, accounts, orders and prices. */
export const TEST = Mode.MODE_TEST;
export const READY = accountsv1.TestClockStatus.TEST_CLOCK_STATUS_READY;
export const ADVANCING = accountsv1.TestClockStatus.TEST_CLOCK_STATUS_ADVANCING;

export const at = (iso: string) => new Date(iso);

export function clockHelpers(harness: () => Harness, org: () => string) {
  const scope = () => ({ organizationId: org(), mode: TEST });
  const h = () => harness();
  const helpers = {
    async createClock(frozenTime: Date, name = ''): Promise<accountsv1.TestClock> {
      const { testClock } = await h().api.createTestClock({ ...scope(), frozenTime, name });
      if (!testClock) throw new Error('no clock');
      return testClock;
    },
    async clock(id: string): Promise<accountsv1.TestClock> {
      const { testClock } = await h().api.getTestClock({ ...scope(), id });
      if (!testClock) throw new Error('no clock');
      return testClock;
    },
    async accounts(count: number, testClockId: string, program = ''): Promise<string[]> {
      const { accounts } = await h().api.createAccounts({ ...scope(), count, program, initialBalance: 0, testClockId });
      return accounts.map((a) => a.number);
    },
    async account(number: string): Promise<accountsv1.Account> {
      const { account } = await h().api.getAccount({ ...scope(), number });
      if (!account) throw new Error('no account');
      return account;
    },
    async order(number: string, fields: Partial<tradingv1.PlaceOrderRequest> = {}): Promise<tradingv1.Position> {
      const { position } = await h().trading.placeOrder({
        ...scope(),
        number,
        symbol: 'EURUSD',
        side: tradingv1.Side.SIDE_BUY,
        volume: 1,
        type: tradingv1.OrderType.ORDER_TYPE_MARKET,
        ...fields,
      });
      if (!position) throw new Error('no position');
      return position;
    },
    async close(number: string, positionId: string): Promise<tradingv1.Position> {
      const { position } = await h().trading.closePosition({ ...scope(), number, positionId });
      if (!position) throw new Error('no position');
      return position;
    },
    async clockQuote(testClockId: string, symbol: string, bid: number, ask: number): Promise<tradingv1.Quote> {
      const { quote } = await h().trading.publishTestClockQuote({ ...scope(), testClockId, quote: { symbol, bid, ask } });
      if (!quote) throw new Error('no quote');
      return quote;
    },
    /** Advances and waits for the clock to be ready again (what an integrator polls for). */
    async advance(id: string, frozenTime: Date): Promise<accountsv1.TestClock> {
      const { testClock } = await h().api.advanceTestClock({ ...scope(), id, frozenTime });
      expect(testClock).toMatchObject({ status: ADVANCING, frozenTime });
      return helpers.ready(id);
    },
    /** Waits for the clock to be ready. */
    ready(id: string): Promise<accountsv1.TestClock> {
      return waitUntil(
        async () => {
          const clock = await helpers.clock(id);
          return clock.status === READY ? clock : undefined;
        },
        { what: `clock ${id} ready`, timeoutMs: 60_000 },
      );
    },
    /** The organization's test events of an account (or every one), in feed order, with their times. */
    async events(number?: string, type?: string): Promise<Array<{ type: string; data: Record<string, unknown>; createdAt: Date }>> {
      const rows = await h().sql.query<{ type: string; data: Record<string, unknown>; created_at: Date }>(
        `SELECT type, data, created_at FROM events WHERE organization_id = :org AND livemode = false
           AND (CAST(:number AS text) IS NULL OR data->>'account' = :number) AND (CAST(:type AS text) IS NULL OR type = :type) ORDER BY position`,
        { replacements: { org: org(), number: number ?? null, type: type ?? null }, type: QueryTypes.SELECT },
      );
      return rows.map((r) => ({ type: r.type, data: r.data, createdAt: r.created_at }));
    },
    async count(sql: string, replacements: Record<string, unknown>): Promise<number> {
      const [row] = await h().sql.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
      return Number(row.n);
    },
  };
  return helpers;
}

export type ClockHelpers = ReturnType<typeof clockHelpers>;
