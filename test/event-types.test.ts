/**
 * GET /v1/event_types (SPEC 17): every event type with the JSON Schema of its data, converted from
 * the catalog the services build events with. Real events, from an account driven through its
 * whole life on the real stack (provisioning, claim, orders, flags, a warning, a breach, its
 * reinstatement, halts of the account and of its program, an adjustment, a reset, a pass into a
 * funded phase, payouts approved, paid and rejected, an archive, a test clock, a disabled
 * endpoint, a day locked by its daily loss on a test clock), are validated against the served schemas with ajv, and every type must have come.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_TYPES } from '@propdesk/kit';
import { generateCertificate, startHttpsReceiver, waitUntil, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';
import { ALL_SCOPES, startStack, type Stack } from './support/stack';
import { client } from './support/http';

interface EventType {
  type: string;
  description: string;
  schema: Record<string, unknown>;
}
interface RestEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
type Api = ReturnType<typeof client>;

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let api: Api;
let testApi: Api;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  stack = await startStack({ env: { WEBHOOK_CA_FILE: cert.certFile, WEBHOOK_POLL_INTERVAL_MS: '200' } });
  const org = await stack.createOrg({ credits: 12 });
  await stack.admin.auth.call.setCreditsLowThreshold({ organizationId: org.id, threshold: '10' });
  api = client(stack.url, (await stack.createKey(org.id, [...ALL_SCOPES, 'payouts:write'])).token);
  testApi = client(stack.url, (await stack.createKey(org.id, ALL_SCOPES, 'sandbox', { mode: 'test' })).token);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

async function catalog(own: Api): Promise<EventType[]> {
  const res = await own.get<Page<EventType>>('/v1/event_types');
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Every event of the key's feed, page by page. */
async function feed(own: Api): Promise<RestEvent[]> {
  const events: RestEvent[] = [];
  let path = '/v1/events?limit=200';
  for (;;) {
    const res = await own.get<Page<RestEvent>>('/v1/events', path);
    expect(res.status).toBe(200);
    events.push(...res.body.data);
    if (res.body.next_cursor === null) return events;
    path = `/v1/events?limit=200&cursor=${res.body.next_cursor}`;
  }
}

const quote = (bid: number) => stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid, ask: Number((bid + 0.0001).toFixed(5)), time: new Date() } });

async function ok<T>(answer: Promise<{ status: number; body: T; text: string }>, status = 200): Promise<T> {
  const res = await answer;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res.body;
}

const account = (number: number) => ok(api.get<{ status: string; next_account: number | null }>('/v1/accounts/{number}', `/v1/accounts/${number}`));
const open = (number: number, volume: number) =>
  ok(api.post<{ id: string }>('/v1/accounts/{number}/positions', `/v1/accounts/${number}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume, type: 'market' } }), 201);

/** An evaluation phase that passes at 5 % with no minimum days, then a funded phase whose payouts need approval. */
const lifeProgram = {
  name: 'life',
  initial_balance: 100000,
  phases: [
    { name: 'Evaluation', kind: 'evaluation', profit_target_pct: 5, max_daily_loss_pct: 5, max_total_loss_pct: 10, flag_lots_above: 2, warning_at_pct: 50 },
    { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, payout_requires_approval: true },
  ],
};
const instantProgram = { name: 'instant', initial_balance: 50000, phases: [{ name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 }] };

/** Drives accounts through every event type there is, live and in test mode. */
async function liveEverything(): Promise<void> {
  receiver.on('/gone', () => ({ status: 410 }));
  await ok(api.post('/v1/webhooks', '/v1/webhooks', { body: { url: receiver.url('/gone'), events: ['account.created'] } }), 201);
  await ok(api.post('/v1/programs', '/v1/programs', { body: lifeProgram }), 201);
  await ok(api.post('/v1/programs', '/v1/programs', { body: instantProgram }), 201);
  await quote(1.1);
  // Three accounts take the credits below the threshold (credits.low).
  const created = await ok(api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 3, program: 'life' } }), 201);
  const [first, spare] = created.data.map((a) => a.number) as [number, number, number];
  await ok(api.post('/v1/accounts/claim', '/v1/accounts/claim', { body: { name: 'Life Trader', email: 'life@example.com' } }));

  // 3 lots flag (above 2); 60 lots are refused; a fall of 86 pips uses over half the daily allowance.
  const position = await open(first, 3);
  expect((await api.post('/v1/accounts/{number}/positions', `/v1/accounts/${first}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume: 60, type: 'market' } })).status).toBe(422);
  await quote(1.0915);
  await waitUntil(async () => (await feed(api)).some((e) => e.type === 'account.warning'), { what: 'account.warning' });
  await ok(api.post('/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${first}/positions/${position.id}/close`));

  await ok(api.post('/v1/accounts/{number}/breach', `/v1/accounts/${first}/breach`, { body: { reason: 'manual review' } }));
  await ok(api.post('/v1/accounts/{number}/reinstate', `/v1/accounts/${first}/reinstate`, { body: { reason: 'reviewed' } }));
  await ok(api.post('/v1/accounts/{number}/halt', `/v1/accounts/${first}/halt`, { body: { reason: 'under review' } }));
  await ok(api.post('/v1/accounts/{number}/resume', `/v1/accounts/${first}/resume`));
  await ok(api.post('/v1/accounts/{number}/adjustments', `/v1/accounts/${first}/adjustments`, { body: { amount: 100, reason: 'goodwill' } }), 201);
  await ok(api.post('/v1/accounts/{number}/reset', `/v1/accounts/${first}/reset`));

  // 10 lots and 60 pips: 6,000 of profit passes the 5 % target; the funded account follows.
  await quote(1.1);
  await open(first, 10);
  await quote(1.1061);
  await waitUntil(async () => (await account(first)).status === 'passed', { what: 'the pass' });
  const funded = (await account(first)).next_account as number;
  await ok(api.post('/v1/accounts/{number}/adjustments', `/v1/accounts/${funded}/adjustments`, { body: { amount: 2000, reason: 'profit' } }), 201);
  const approved = await ok(api.post<{ id: string }>('/v1/accounts/{number}/payouts', `/v1/accounts/${funded}/payouts`, { body: { amount: 1000 } }), 201);
  await ok(api.post('/v1/payouts/{id}/approve', `/v1/payouts/${approved.id}/approve`));
  await ok(api.post('/v1/payouts/{id}/mark-paid', `/v1/payouts/${approved.id}/mark-paid`, { body: { reference: 'wire-1' } }));
  const rejected = await ok(api.post<{ id: string }>('/v1/accounts/{number}/payouts', `/v1/accounts/${funded}/payouts`, { body: { amount: 500 } }), 201);
  await ok(api.post('/v1/payouts/{id}/reject', `/v1/payouts/${rejected.id}/reject`, { body: { reason: 'not yet' } }));

  // A payout without approval, and a program's halt and resumption (their events built by SQL).
  const instant = (await ok(api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'instant' } }), 201)).data[0]!.number;
  await ok(api.post('/v1/accounts/{number}/adjustments', `/v1/accounts/${instant}/adjustments`, { body: { amount: 1000, reason: 'profit' } }), 201);
  await ok(api.post('/v1/accounts/{number}/payouts', `/v1/accounts/${instant}/payouts`, { body: {} }), 201);
  await ok(api.post('/v1/programs/{name}/halt', '/v1/programs/instant/halt', { body: { reason: 'audit' } }));
  await ok(api.post('/v1/programs/{name}/resume', '/v1/programs/instant/resume'));
  await ok(api.post('/v1/accounts/{number}/archive', `/v1/accounts/${spare}/archive`));
}

/** A phase whose daily loss locks the day instead of breaching (account.locked). */
const lockingProgram = {
  name: 'locking',
  initial_balance: 100000,
  phases: [{ name: 'Evaluation', kind: 'evaluation', profit_target_pct: 10, max_daily_loss_pct: 5, max_total_loss_pct: 10, daily_loss_action: 'lock' }],
};

async function testModeClock(): Promise<void> {
  const clock = await ok(testApi.post<{ id: string }>('/v1/test_clocks', '/v1/test_clocks', { body: { frozen_time: '2025-03-05T09:00:00Z' } }), 201);
  // 10 lots bought at 1.1001 and marked at 1.0940 lose 6,100, past the 5,000 of the day: locked.
  await ok(testApi.post('/v1/programs', '/v1/programs', { body: lockingProgram }), 201);
  const clockQuote = (bid: number) =>
    ok(testApi.post('/v1/test_clocks/{id}/quotes', `/v1/test_clocks/${clock.id}/quotes`, { body: { symbol: 'EURUSD', bid, ask: Number((bid + 0.0001).toFixed(5)) } }));
  await clockQuote(1.1);
  const locking = (await ok(testApi.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1, program: 'locking', test_clock: clock.id } }), 201)).data[0]!.number;
  await ok(testApi.post('/v1/accounts/{number}/positions', `/v1/accounts/${locking}/positions`, { body: { symbol: 'EURUSD', side: 'buy', volume: 10, type: 'market' } }), 201);
  await clockQuote(1.094);
  await waitUntil(async () => (await feed(testApi)).some((e) => e.type === 'account.locked'), { what: 'account.locked' });
  await ok(testApi.post('/v1/test_clocks/{id}/advance', `/v1/test_clocks/${clock.id}/advance`, { body: { frozen_time: '2025-03-05T10:00:00Z' } }));
  await waitUntil(async () => (await feed(testApi)).some((e) => e.type === 'test_clock.ready'), { what: 'test_clock.ready' });
}

describe('GET /v1/event_types', () => {
  it('lists every type once, in the catalog’s order, each with a description and a JSON Schema ajv compiles, to any key', async () => {
    const org = await stack.createOrg();
    const noScopes = client(stack.url, (await stack.createKey(org.id, [])).token);
    const listed = await catalog(noScopes);
    expect(listed.map((t) => t.type)).toEqual(EVENT_TYPES);
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    for (const entry of listed) {
      expect(entry.description.length).toBeGreaterThan(10);
      expect(entry.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false });
      expect(() => ajv.compile(entry.schema)).not.toThrow();
    }
    expect(await catalog(testApi)).toEqual(listed);
    const unauthenticated = await fetch(`${stack.url}/v1/event_types`);
    expect(unauthenticated.status).toBe(401);
  });

  it('describes every real event: an account’s whole life validates against the served schemas, and every type comes', async () => {
    await liveEverything();
    await testModeClock();
    await waitUntil(async () => (await feed(api)).some((e) => e.type === 'webhook_endpoint.disabled'), { timeoutMs: 40_000, what: 'webhook_endpoint.disabled' });

    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    const validators = new Map((await catalog(api)).map((t) => [t.type, ajv.compile(t.schema)]));
    const events = [...(await feed(api)), ...(await feed(testApi))];
    const problems = events.flatMap((event) => {
      const validate = validators.get(event.type);
      if (!validate) return [`${event.type}: no schema`];
      return validate(event.data) ? [] : [`${event.type} ${JSON.stringify(event.data)}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(problems).toEqual([]);
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...EVENT_TYPES].sort());
    // The program's halt wrote its events by SQL: they validate like the rest.
    expect(events.filter((e) => e.type === 'account.halted' && e.data.reason === 'audit')).toHaveLength(1);
  }, 180_000);
});
