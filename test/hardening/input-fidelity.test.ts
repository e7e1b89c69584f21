/**
 * Text is stored exactly as sent or refused, never transformed: control characters and broken
 * UTF-16 in any free-text field are 400 naming the field, over REST and for gRPC callers alike;
 * email addresses are at most 254 characters.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';
import { authv1 } from '@propdesk/proto';
import { Mode } from '@propdesk/kit';

interface Trader {
  id: string;
  name: string;
  email: string;
}

let stack: Stack;
let api: ReturnType<typeof client>;
let orgId: string;
let numbers: number[];

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg()).id;
  api = client(stack.url, (await stack.createKey(orgId)).token);
  numbers = await stack.createAccounts(orgId, 3);
});

afterAll(async () => {
  await stack?.stop();
});

const CONTROLS = ['x\u0000y', 'x\u0007y', 'tab\there', 'line\nbreak', 'cr\rhere', 'esc\u001b[31m', 'del\u007f', 'c1\u0085', 'c1\u009b', 'lone \ud800 surrogate', 'lone \udc00'];
let emails = 0;
const nextEmail = () => `fidelity${(emails += 1)}@example.com`;

describe('free text', () => {
  it.each(CONTROLS)('refuses a trader name %j with 400 naming name (create, claim, assign)', async (name) => {
    const created = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name, email: nextEmail() } });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    const assigned = await api.put<ErrorBody>('/v1/accounts/{number}/trader', `/v1/accounts/${numbers[0]}/trader`, { body: { name, email: nextEmail() } });
    expect(assigned.status).toBe(400);
    expect(assigned.body.error.param).toBe('name');
    const claimed = await api.post<ErrorBody>('/v1/accounts/claim', '/v1/accounts/claim', { body: { name, email: nextEmail() } });
    expect(claimed.status).toBe(400);
    expect(claimed.body.error.param).toBe('name');
  });

  it('refuses a breach reason with a control character', async () => {
    const res = await api.post<ErrorBody>('/v1/accounts/{number}/breach', `/v1/accounts/${numbers[1]}/breach`, { body: { reason: 'bad\u0000reason' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'reason' });
  });

  it('refuses a webhook url with a control character or whitespace instead of stripping it', async () => {
    for (const url of ['https://exa\tmple.com/x', 'https://example.com/x\n', ' https://example.com/x', 'https://example.com/\u0000']) {
      const res = await api.post<ErrorBody>('/v1/webhooks', '/v1/webhooks', { body: { url } });
      expect([url, res.status, res.body.error?.param]).toEqual([url, 400, 'url']);
    }
  });

  it.each(['  Spaced  Name ', 'Zoë Łukasz-Ñúñez', '👩‍💻 Dev', '\u202eRTL', 'שלום'])('stores the name %j exactly', async (name) => {
    const created = await api.post<Trader>('/v1/traders', '/v1/traders', { body: { name, email: nextEmail() } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
    const read = await api.get<Trader>('/v1/traders/{id}', `/v1/traders/${created.body.id}`);
    expect(read.body.name).toBe(name);
  });

  it('refuses names that are empty or only whitespace', async () => {
    for (const name of ['', ' ', '   ']) {
      const res = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name, email: nextEmail() } });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('name');
    }
  });

  it('refuses the same from a gRPC caller', async () => {
    const error = await stack.admin.accounts.call
      .createTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, name: 'x\u0000y', email: nextEmail() })
      .then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'name' });
    const keyError = await stack.admin.auth.call
      .createApiKey({ organizationId: orgId, mode: Mode.MODE_LIVE, name: 'key\u0000name', scopes: [] })
      .then(() => undefined, (err: unknown) => err);
    expect(keyError).toMatchObject({ code: 'invalid_request', param: 'name' });
    const orgError = await stack.admin.auth.call
      .createOrganization({ name: 'Org\u0007', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '0' })
      .then(() => undefined, (err: unknown) => err);
    expect(orgError).toMatchObject({ code: 'invalid_request', param: 'name' });
  });
});

describe('email addresses', () => {
  const ofLength = (n: number) => {
    const domain = `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(62)}.com`; // 194 characters
    return `${'l'.repeat(n - domain.length - 1)}@${domain}`;
  };

  it('refuses an address longer than 254 characters and keeps one of 254', async () => {
    const long = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name: 'Long', email: ofLength(255) } });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'invalid_request', param: 'email' });
    const longer = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name: 'Longer', email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` } });
    expect(longer.status).toBe(400);
    const fits = await api.post<Trader>('/v1/traders', '/v1/traders', { body: { name: 'Fits', email: ofLength(254) } });
    expect(fits.status).toBe(201);
    expect(fits.body.email).toBe(ofLength(254));
  });

  it('refuses an address with surrounding whitespace or a control character rather than trimming it', async () => {
    for (const email of [' pad@example.com', 'pad@example.com ', 'nul\u0000@example.com']) {
      const res = await api.post<ErrorBody>('/v1/traders', '/v1/traders', { body: { name: 'Pad', email } });
      expect([email, res.status, res.body.error?.param]).toEqual([email, 400, 'email']);
    }
  });

  it('refuses a gRPC caller an address over 254 characters', async () => {
    const error = await stack.admin.accounts.call
      .createTrader({ organizationId: orgId, mode: Mode.MODE_LIVE, name: 'Long', email: ofLength(255) })
      .then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'email' });
  });
});
