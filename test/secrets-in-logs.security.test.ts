/**
 * Issue 2 item 10: no API key, panel session token, executor token, executor password or webhook
 * secret appears in any log line of any service, at debug level, during a run that uses them all.
 */
import { Writable } from 'node:stream';
import { startStack, type Stack } from './support/stack';
import { client, request } from './support/http';

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    lines.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0));
    callback();
  },
});

let stack: Stack;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await startStack({ logDestination: capture, logLevel: 'debug' });
});

afterAll(async () => {
  await stack?.stop();
});

it('never logs a secret', async () => {
  const org = await stack.createOrg();
  const key = await stack.createKey(org.id);
  secrets.push(key.token);
  const owner = await stack.createUser(org.id, { role: 'owner' });
  secrets.push(owner.password);

  const login = await fetch(`${stack.url}/panel/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const sessionValue = cookie.split('=').slice(1).join('=');
  if (sessionValue.length > 0) secrets.push(sessionValue);
  await request(stack.url, 'GET', '/panel/api/me', { headers: { cookie } });
  await request(stack.url, 'POST', '/panel/api/login', { body: { email: owner.email, password: `${owner.password}-wrong` } });
  secrets.push(`${owner.password}-wrong`);

  const api = client(stack.url, key.token);
  const created = await api.post<{ data: Array<{ number: number }> }>('/v1/accounts', '/v1/accounts', { body: { count: 1 } });
  const number = created.body.data[0]?.number as number;
  const creds = await api.get<{ password: string }>('/v1/accounts/{number}/credentials', `/v1/accounts/${number}/credentials`);
  secrets.push(creds.body.password);
  const session = await client(stack.url).post<{ token: string }>('/v1/executor/sessions', '/v1/executor/sessions', {
    body: { account: number, password: creds.body.password },
  });
  expect(session.status).toBe(201);
  secrets.push(session.body.token);
  await client(stack.url, session.body.token).get('/v1/executor/account');
  await client(stack.url).post('/v1/executor/sessions', '/v1/executor/sessions', { body: { account: number, password: 'wrong-executor-password' } });
  secrets.push('wrong-executor-password');

  const webhook = await api.post<{ secret?: string }>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook', events: [] } });
  if (webhook.status === 201 && webhook.body.secret) secrets.push(webhook.body.secret);

  // Bad input and invalid keys are logged too; make sure those paths redact as well.
  await client(stack.url, `${key.token}x`).get('/v1/accounts');
  await api.post('/v1/accounts', '/v1/accounts', { body: '{"count":' });

  await stack.stop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(lines.length).toBeGreaterThan(10);
  for (const secret of secrets) {
    const leaking = lines.filter((line) => line.includes(secret));
    expect({ secret: `${secret.slice(0, 12)}...`, leaking }).toEqual({ secret: `${secret.slice(0, 12)}...`, leaking: [] });
  }
});
