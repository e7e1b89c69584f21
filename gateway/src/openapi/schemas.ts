import { EVENT_TYPES } from '@propdesk/kit';

/** JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of every REST shape. Strict on purpose: drift fails the e2e checks. */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: Schema = {}): Schema => ({ type: [type, 'null'], ...extra });
const dateTime: Schema = { type: 'string', format: 'date-time' };
const nullableDateTime: Schema = { type: ['string', 'null'], format: 'date-time' };

export function object(properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

export function pageOf(item: string): Schema {
  return object({ data: { type: 'array', items: ref(item) }, next_cursor: nullable('string') });
}

export { ref };

/** The event types of SPEC section 8 (the kit's one list). */
export const EVENT_TYPE_NAMES = [...EVENT_TYPES];

const ERROR_CODES = [
  'invalid_request',
  'invalid_cursor',
  'unauthorized',
  'invalid_api_key',
  'invalid_credentials',
  'invalid_session',
  'payment_required',
  'insufficient_credits',
  'missing_scope',
  'forbidden',
  'not_found',
  'conflict',
  'account_archived',
  'account_breached',
  'account_passed',
  'no_unassigned_accounts',
  'idempotency_key_reused',
  'payload_too_large',
  'order_rejected',
  'rate_limited',
  'internal_error',
  'unavailable',
];

const position = object({
  id: { type: 'string' },
  status: { enum: ['pending', 'open', 'closed', 'cancelled'] },
  symbol: { type: 'string' },
  side: { enum: ['buy', 'sell'] },
  volume: { type: 'number' },
  type: { enum: ['market', 'limit', 'stop'] },
  price: nullable('number'),
  open_price: nullable('number'),
  stop_loss: nullable('number'),
  take_profit: nullable('number'),
  opened_at: nullableDateTime,
  close_price: nullable('number'),
  profit: nullable('number'),
  closed_at: nullableDateTime,
  close_reason: nullable('string'),
});

export const componentSchemas: Record<string, Schema> = {
  Error: object({
    error: object(
      {
        code: { enum: ERROR_CODES },
        message: { type: 'string' },
        param: { type: 'string' },
      },
      ['code', 'message'],
    ),
  }),
  Account: object({
    number: { type: 'integer', minimum: 1 },
    status: { enum: ['active', 'passed', 'breached', 'archived'] },
    trader_id: nullable('string'),
    program: { type: 'string' },
    currency: { type: 'string' },
    initial_balance: { type: 'number' },
    balance: { type: 'number' },
    equity: { type: 'number' },
    peak_equity: { type: 'number' },
    created_at: dateTime,
  }),
  AccountPage: pageOf('Account'),
  AccountList: object({ data: { type: 'array', items: ref('Account') } }),
  Trader: object({ id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, created_at: dateTime }),
  TraderPage: pageOf('Trader'),
  Assignment: object({ account: ref('Account'), trader: ref('Trader') }),
  Unassignment: object({ account: ref('Account'), trader: { type: 'null' } }),
  Credentials: object({ login: { type: 'integer' }, password: { type: 'string' }, server: { type: 'string' } }),
  ExecutorSession: object({ token: { type: 'string', pattern: '^pfx_exec_' }, expires_at: dateTime }),
  Event: object({
    id: { type: 'string', pattern: '^evt_' },
    type: { type: 'string' },
    created_at: dateTime,
    organization_id: { type: 'string' },
    data: { type: 'object' },
  }),
  EventPage: pageOf('Event'),
  Position: position,
  PositionPage: pageOf('Position'),
  Deal: object({
    id: { type: 'string' },
    position_id: { type: 'string' },
    symbol: { type: 'string' },
    side: { enum: ['buy', 'sell'] },
    volume: { type: 'number' },
    open_price: { type: 'number' },
    close_price: { type: 'number' },
    profit: { type: 'number' },
    opened_at: nullableDateTime,
    closed_at: nullableDateTime,
    close_reason: nullable('string'),
    balance_after: { type: 'number' },
  }),
  DealPage: pageOf('Deal'),
  Flag: object({
    id: { type: 'string' },
    account: { type: 'integer' },
    rule: { type: 'string' },
    action: { type: 'string' },
    reason: { type: 'string' },
    evidence: { type: 'object' },
    created_at: dateTime,
  }),
  FlagPage: pageOf('Flag'),
  EquityCurve: object({
    data: { type: 'array', items: object({ time: dateTime, equity: { type: 'number' }, balance: { type: 'number' } }) },
  }),
  Analytics: { type: 'object', description: 'Indicators (SPEC section 9): win rate, profit factor, expectancy, drawdown, Sharpe, lots, headroom.' },
  Report: { type: 'object', description: 'The nine report sections of SPEC section 9.' },
  Webhook: object({
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    status: { enum: ['enabled', 'disabled'] },
    created_at: dateTime,
  }),
  WebhookWithSecret: object({
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    status: { enum: ['enabled', 'disabled'] },
    created_at: dateTime,
    secret: { type: 'string' },
  }),
  WebhookPage: pageOf('Webhook'),
  WebhookDeleted: object({ id: { type: 'string' }, deleted: { const: true } }),
  Delivery: object({
    id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    attempt: { type: 'integer', minimum: 0 },
    status: { enum: ['pending', 'succeeded', 'failed'] },
    response_status: nullable('integer'),
    error: nullable('string'),
    duration_ms: nullable('integer'),
    next_attempt_at: nullableDateTime,
    created_at: dateTime,
  }),
  DeliveryPage: pageOf('Delivery'),
  DeliveryAccepted: object({ delivery_id: { type: 'string' }, event_id: { type: 'string' } }),
  Health: object({
    status: { const: 'ok' },
    services: object({ auth: { const: 'serving' }, accounts: { const: 'serving' }, webhooks: { const: 'serving' } }),
  }),
  RevokedKey: object({
    id: { type: 'string' },
    prefix: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    revoked_at: dateTime,
  }),
  // Request bodies.
  CreateAccountsRequest: {
    type: 'object',
    properties: { count: { type: 'integer', minimum: 1, maximum: 100 }, program: { type: 'string' }, initial_balance: { type: 'number', exclusiveMinimum: 0 } },
    required: ['count'],
  },
  TraderRequest: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' } },
    required: ['name', 'email'],
  },
  OrderRequest: {
    type: 'object',
    properties: {
      symbol: { type: 'string' },
      side: { enum: ['buy', 'sell'] },
      volume: { type: 'number', exclusiveMinimum: 0 },
      type: { enum: ['market', 'limit', 'stop'], default: 'market' },
      price: { type: 'number', exclusiveMinimum: 0, description: 'limit and stop orders only' },
      stop_loss: { type: 'number', exclusiveMinimum: 0 },
      take_profit: { type: 'number', exclusiveMinimum: 0 },
    },
    required: ['symbol', 'side', 'volume'],
  },
  EnableWebhookRequest: {
    type: 'object',
    description: 'Optional body. With redeliver_since, deliveries that failed or were skipped since then are scheduled again.',
    properties: { redeliver_since: { type: 'string', format: 'date-time' } },
  },
  BreachRequest: { type: 'object', properties: { reason: { type: 'string', minLength: 1 } }, required: ['reason'] },
  ExecutorSessionRequest: {
    type: 'object',
    properties: { account: { type: 'integer', minimum: 1 }, password: { type: 'string', minLength: 1 } },
    required: ['account', 'password'],
  },
  WebhookRequest: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', pattern: '^https://' },
      events: { type: 'array', items: { enum: EVENT_TYPE_NAMES }, description: 'empty = every event type' },
    },
    required: ['url'],
  },
};
