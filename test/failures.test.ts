/**
 * Issue 2 item 4: a service that is down answers 503 unavailable quickly, never a hang; /healthz
 * says 503 with the error body; the panel proxy turns a dead panel into a JSON 503.
 */
import { startStack, type Stack } from './support/stack';
import { client, request, type ErrorBody } from './support/http';

let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  token = (await stack.createKey(org.id)).token;
  await stack.createAccounts(org.id, 1);
});

afterAll(async () => {
  await stack?.stop();
});

describe('when a service is down', () => {
  it('answers 503 unavailable quickly when the accounts service is gone, and /healthz says 503', async () => {
    const api = client(stack.url, token);
    expect((await api.get('/v1/accounts')).status).toBe(200);
    await stack.stopService('accounts');

    const startedAt = Date.now();
    const res = await api.get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
    expect(Date.now() - startedAt).toBeLessThan(3000);

    const health = await client(stack.url).get<ErrorBody>('/healthz');
    expect(health.status).toBe(503);
    expect(health.body.error.code).toBe('unavailable');
  });

  it('answers 503 unavailable when the panel is gone, as JSON', async () => {
    await stack.stopService('panel');
    const res = await request<ErrorBody>(stack.url, 'POST', '/panel/api/login', { body: { email: 'a@example.com', password: 'x' } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
  });

  it('answers 503 unavailable when auth is gone and the key is not cached, still quickly', async () => {
    await stack.stopService('auth');
    const startedAt = Date.now();
    const res = await client(stack.url, `pfx_live_${'Z'.repeat(40)}`).get<ErrorBody>('/v1/accounts');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
    expect(Date.now() - startedAt).toBeLessThan(3000);
  });
});
