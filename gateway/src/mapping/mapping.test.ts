import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { accountsv1, tradingv1, webhooksv1 } from '@propdesk/proto';
import { parseQuery } from '../http/validation';
import { openApiDocument } from '../routes';
import { accountRoutes } from '../routes/accounts';
import { toRestAccount, toRestEvent } from './accounts';
import { toRestPosition } from './trading';
import { toRestDelivery, toRestEndpoint } from './webhooks';

const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addSchema({ ...openApiDocument(), $id: 'doc' });
const matches = (schema: string, value: unknown): boolean => {
  const validate = ajv.getSchema(`doc#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  const ok = validate(value) as boolean;
  if (!ok) throw new Error(JSON.stringify(validate.errors));
  return ok;
};

const created = new Date('2026-01-02T03:04:05.000Z');

describe('proto -> REST mapping', () => {
  it('shows an account with numbers as JSON numbers, trader_id null when unassigned, ISO times', () => {
    const rest = toRestAccount({
      number: '1000042',
      organizationId: 'org',
      livemode: true,
      status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
      program: 'standard',
      currency: 'USD',
      initialBalance: 100000,
      balance: 95000,
      equity: 94000,
      peakEquity: 101000,
      createdAt: created,
      programVersion: 1,
      attempt: 1,
      tradingHalted: false,
    });
    expect(rest).toEqual({
      number: 1000042,
      status: 'breached',
      trader_id: null,
      program: 'standard',
      currency: 'USD',
      initial_balance: 100000,
      balance: 95000,
      equity: 94000,
      peak_equity: 101000,
      created_at: '2026-01-02T03:04:05.000Z',
      program_version: 1,
      phase: { index: 0, name: 'evaluation', kind: 'evaluation' },
      attempt: 1,
      previous_account: null,
      next_account: null,
      livemode: true,
      trading_halted: false,
      test_clock: null,
    });
    expect(matches('Account', rest)).toBe(true);
  });

  it('shows absent position fields as null and names enums in lower case', () => {
    const rest = toRestPosition({
      id: 'pos_1',
      account: '7',
      status: tradingv1.PositionStatus.POSITION_STATUS_PENDING,
      symbol: 'EURUSD',
      side: tradingv1.Side.SIDE_SELL,
      volume: 0.5,
      type: tradingv1.OrderType.ORDER_TYPE_LIMIT,
      price: 1.2,
      closeReason: '',
      createdAt: created,
      attempt: 2,
    });
    expect(rest).toMatchObject({ attempt: 2, status: 'pending', side: 'sell', type: 'limit', price: 1.2, open_price: null, opened_at: null, close_reason: null });
    expect(matches('Position', rest)).toBe(true);
  });

  it('shows webhook endpoints, deliveries and events in the documented shapes', () => {
    expect(
      matches(
        'Webhook',
        toRestEndpoint({ id: 'whe_1', organizationId: 'o', url: 'https://x.example/h', description: '', events: [], status: webhooksv1.EndpointStatus.ENDPOINT_STATUS_DISABLED, createdAt: created, livemode: true }),
      ),
    ).toBe(true);
    const delivery = toRestDelivery({
      id: 'd1',
      endpointId: 'whe_1',
      eventId: 'evt_1',
      eventType: 'account.created',
      attempt: 0,
      status: webhooksv1.DeliveryStatus.DELIVERY_STATUS_PENDING,
      responseStatus: 0,
      error: '',
      durationMs: 0,
      createdAt: created,
    });
    expect(delivery).toMatchObject({ status: 'pending', response_status: null, error: null, next_attempt_at: null });
    expect(matches('Delivery', delivery)).toBe(true);
    expect(matches('Event', toRestEvent({ id: 'evt_1', type: 'account.created', organizationId: '0d3c4b1a-6f7e-4a2b-9c8d-1e2f3a4b5c6d', createdAt: created, data: { account: 1 }, livemode: true, traceparent: '', tracestate: '' }))).toBe(true);
  });

  it('refuses an unknown status filter with 400 naming status', () => {
    const list = accountRoutes.find((r) => r.operationId === 'listAccounts');
    expect(() => parseQuery(list?.query ?? {}, { status: 'sleeping' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'status', message: 'status must be one of active, passed, breached, archived' }),
    );
  });
});
