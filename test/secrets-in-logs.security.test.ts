/**
 * Issue 2 item 10 and issue 14: no API key (created, created with an expiry, rolled), panel session
 * token, executor token, executor password or webhook secret (registered or rotated, whole or its
 * base64 part) appears in any log line of any service, at debug level, during a run that uses them all.
 */
import { Writable } from 'node:stream';
import { waitUntil } from '@propdesk/kit/testing';
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

  const webhook = await api.post<{ id: string; secret: string }>('/v1/webhooks', '/v1/webhooks', { body: { url: 'https://127.0.0.1:9/hook', events: [] } });
  expect(webhook.status).toBe(201);
  secrets.push(webhook.body.secret, webhook.body.secret.slice('whsec_'.length));
  const rotated = await api.post<{ secret: string }>('/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${webhook.body.id}/rotate-secret`, {
    body: { previous_expires_in: 60 },
  });
  expect(rotated.status).toBe(200);
  secrets.push(rotated.body.secret, rotated.body.secret.slice('whsec_'.length));
  // A test delivery is signed with both secrets (and fails to connect): the signing path logs too.
  await api.post('/v1/webhooks/{id}/test', `/v1/webhooks/${webhook.body.id}/test`);

  const expiring = await request<{ id: string; token: string }>(stack.url, 'POST', '/panel/api/keys', {
    headers: { cookie },
    body: { name: 'expiring', scopes: ['accounts:read'], expires_in: 3600 },
  });
  expect(expiring.status).toBe(201);
  secrets.push(expiring.body.token);
  await client(stack.url, expiring.body.token).get('/v1/accounts');
  const rolled = await request<{ token: string }>(stack.url, 'POST', `/api-keys/${expiring.body.id}/roll`, { headers: { cookie }, body: { previous_expires_in: 60 } });
  expect(rolled.status).toBe(201);
  secrets.push(rolled.body.token);
  await client(stack.url, rolled.body.token).get('/v1/accounts');
  await request(stack.url, 'POST', `/panel/api/keys/${expiring.body.id}/limits`, { headers: { cookie }, body: { read: 100, write: 10 } });
  await request(stack.url, 'POST', `/api-keys/${expiring.body.id}/roll`, { headers: { cookie }, body: { previous_expires_in: 'soon' } });

  // Bad input and invalid keys are logged too; make sure those paths redact as well.
  await client(stack.url, `${key.token}x`).get('/v1/accounts');
  await api.post('/v1/accounts', '/v1/accounts', { body: '{"count":' });

  // The dispatcher has attempted the test delivery (and the signing path has logged) before the stop.
  await waitUntil(
    async () => {
      const listed = await api.get<{ data: Array<{ attempt: number }> }>('/v1/webhooks/{id}/deliveries', `/v1/webhooks/${webhook.body.id}/deliveries`);
      return listed.body.data.some((delivery) => delivery.attempt >= 1);
    },
    { what: 'the test delivery attempted' },
  );
  await stack.stop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(lines.length).toBeGreaterThan(10);
  for (const secret of secrets) {
    const leaking = lines.filter((line) => line.includes(secret));
    expect({ secret: `${secret.slice(0, 12)}...`, leaking }).toEqual({ secret: `${secret.slice(0, 12)}...`, leaking: [] });
  }
});
