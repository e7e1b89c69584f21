/**
 * Issue 3 over HTTP: provisioning, assignment, claim, credentials, executor sessions, archive,
 * traders and events, as an integrator sees them.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface Account {
  number: number;
  status: string;
  trader_id: string | null;
  program: string;
  initial_balance: number;
}
interface Trader {
  id: string;
  name: string;
  email: string;
}
interface Assignment {
  account: Account;
  trader: Trader | null;
}
interface Credentials {
  login: number;
  password: string;
  server: string;
}

let stack: Stack;
let orgId: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 50 })).id;
  api = client(stack.url, (await stack.createKey(orgId)).token);
});

afterAll(async () => {
  await stack?.stop();
});

describe('provisioning', () => {
  it('creates accounts with 201 {data: [...]}, unassigned and active', async () => {
    const res = await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 3, initial_balance: 50000 } });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(3);
    for (const account of res.body.data) {
      expect(account).toMatchObject({ status: 'active', trader_id: null, program: 'standard', initial_balance: 50000 });
    }
  });

  it.each([
    [{ count: 0 }, 'count'],
    [{ count: 101 }, 'count'],
    [{ count: 'two' }, 'count'],
    [{}, 'count'],
    [{ count: 1, initial_balance: -5 }, 'initial_balance'],
  ])('answers %j 400 naming %s', async (body, param) => {
    const res = await api.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('answers 402 insufficient_credits when the organization is short, creating nothing', async () => {
    const poor = await stack.createOrg({ credits: 2 });
    const poorApi = client(stack.url, (await stack.createKey(poor.id)).token);
    const res = await poorApi.post<ErrorBody>('/v1/accounts', '/v1/accounts', { body: { count: 3 } });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_credits');
    const list = await poorApi.get<{ data: Account[] }>('/v1/accounts');
    expect(list.body.data).toHaveLength(0);
  });
});

describe('assignment, claim and archive', () => {
  it('assigns a trader with PUT, keeps the trader on a repeat, and unassigns with DELETE', async () => {
    const [account] = (await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data;
    const number = (account as Account).number;
    const put = await api.put<Assignment>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, {
      body: { name: 'Ada Trader', email: 'Ada@Example.com' },
    });
    expect(put.status).toBe(200);
    expect(put.body.trader?.name).toBe('Ada Trader');
    expect(put.body.trader?.email.toLowerCase()).toBe('ada@example.com');
    const repeat = await api.put<Assignment>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, {
      body: { name: 'Renamed', email: 'ADA@example.com' },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.trader).toEqual(put.body.trader);
    expect(put.body.account.trader_id).toBe(put.body.trader?.id);

    const trader = await api.get<Trader>('/v1/traders/{id}', `/v1/traders/${put.body.trader?.id}`);
    expect(trader.status).toBe(200);

    const del = await api.delete<Assignment>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`);
    expect(del.status).toBe(200);
    expect(del.body.trader).toBeNull();
    expect(del.body.account.trader_id).toBeNull();
    const again = await api.delete<Assignment>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`);
    expect(again.status).toBe(200);
  });

  it('answers a bad trader body 400 naming the field', async () => {
    const res = await api.put<ErrorBody>('/v1/accounts/{number}/trader', '/v1/accounts/1/trader', { body: { name: 'X', email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'email' });
  });

  it('claims distinct accounts under concurrency, then 409 no_unassigned_accounts', async () => {
    const org = await stack.createOrg({ credits: 10 });
    const claimApi = client(stack.url, (await stack.createKey(org.id)).token);
    await stack.createAccounts(org.id, 5);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => claimApi.post<Assignment & ErrorBody>('/v1/accounts/claim', '/v1/accounts/claim', { body: { name: `T${i}`, email: `t${i}@example.com` } })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(5);
    expect(new Set(ok.map((r) => r.body.account.number)).size).toBe(5);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('no_unassigned_accounts');
    }
  });

  it('archives an account, which then refuses assignment with 409 account_archived', async () => {
    const [account] = (await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data;
    const number = (account as Account).number;
    const archived = await api.post<Account>('/v1/accounts/{number}/archive', `/v1/accounts/${number}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
    const put = await api.put<ErrorBody>('/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, { body: { name: 'Late', email: 'late@example.com' } });
    expect(put.status).toBe(409);
    expect(put.body.error.code).toBe('account_archived');
  });
});

describe('credentials and executor sessions', () => {
  it('logs a trader in, serves the session account, and revokes the session on rotation', async () => {
    const [account] = (await api.post<{ data: Account[] }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } })).body.data;
    const number = (account as Account).number;
    const creds = await api.get<Credentials>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
    expect(creds.status).toBe(200);
    expect(creds.body.login).toBe(number);

    const wrong = await client(stack.url).post<ErrorBody>('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: number, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');

    const login = await client(stack.url).post<{ token: string; expires_at: string }>('/v1/executor/sessions', '/v1/executor/sessions', {
      body: { account: number, password: creds.body.password },
    });
    expect(login.status).toBe(201);
    expect(login.body.token.startsWith('pfx_exec_')).toBe(true);

    const executor = client(stack.url, login.body.token);
    const mine = await executor.get<Account>('/v1/executor/account');
    expect(mine.status).toBe(200);
    expect(mine.body.number).toBe(number);

    const rotated = await api.post<Credentials>('/v1/accounts/{number}/credentials/rotate', `/v1/accounts/${number}/credentials/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.password).not.toBe(creds.body.password);

    const after = await executor.get<ErrorBody>('/v1/executor/account');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_session');
  });

  it('answers an executor route without a session 401', async () => {
    const res = await client(stack.url).get<ErrorBody>('/v1/executor/account');
    expect(res.status).toBe(401);
    const bogus = await client(stack.url, 'pfx_exec_bogus').get<ErrorBody>('/v1/executor/account');
    expect(bogus.status).toBe(401);
    expect(bogus.body.error.code).toBe('invalid_session');
  });
});

describe('traders and events', () => {
  it('creates a trader with 201, answers 200 with the same trader when it already exists', async () => {
    const first = await api.post<Trader>('/v1/traders', '/v1/traders', { body: { name: 'Grace', email: 'grace@example.com' } });
    expect(first.status).toBe(201);
    const second = await api.post<Trader>('/v1/traders', '/v1/traders', { body: { name: 'Other Name', email: 'GRACE@example.com' } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const list = await api.get<{ data: Trader[]; next_cursor: string | null }>('/v1/traders');
    expect(list.body.data.map((t) => t.id)).toContain(first.body.id);
  });

  it('lists account events with the seed envelope and filters by type', async () => {
    const res = await api.get<{ data: Array<{ type: string; organization_id: string }> }>('/v1/events', '/v1/events?type=account.created&limit=5');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const event of res.body.data) {
      expect(event.type).toBe('account.created');
      expect(event.organization_id).toBe(orgId);
    }
    const bad = await api.get<ErrorBody>('/v1/events', '/v1/events?type=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('type');
  });
});
