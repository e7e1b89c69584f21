/**
 * Issue 12, item 7: the backup and restore drill of deploy/README.md ("Backup and restore"), run
 * for real. A stack writes accounts, a trader, credentials, an API key, a webhook endpoint and
 * events; `pg_dump -Fc` takes the database while it runs; `pg_restore` loads the dump into a fresh
 * database; a new stack (same secrets, as the drill says) starts on it and answers the same: the
 * same accounts and credentials, the same key still valid, the same webhook endpoint, the same
 * events, and new writes carry on after the restored ones.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@propdesk/kit/testing';
import { request } from '../support/http';
import { startStack, type Stack } from '../support/stack';

jest.setTimeout(180_000);

let original: Stack | undefined;
let restored: Stack | undefined;
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-backup-'));
});

afterAll(async () => {
  await original?.stop();
  await restored?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Snapshot {
  accounts: unknown;
  events: unknown;
  credentials: unknown;
  webhooks: unknown;
  traders: unknown;
}

async function snapshot(stack: Stack, token: string, account: number): Promise<Snapshot> {
  const get = async (p: string) => {
    const res = await request(stack.url, 'GET', p, { token });
    expect({ path: p, status: res.status }).toEqual({ path: p, status: 200 });
    return res.body;
  };
  return {
    accounts: await get('/v1/accounts?limit=200'),
    events: await get('/v1/events?limit=200'),
    credentials: await get(`/v1/accounts/${account}/credentials`),
    webhooks: await get('/v1/webhooks'),
    traders: await get('/v1/traders'),
  };
}

test('pg_dump of a running stack, pg_restore into a fresh database, a new stack on it reads the same data', async () => {
  original = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const org = await original.createOrg();
  const key = await original.createKey(org.id);
  expect((await request(original.url, 'POST', '/v1/accounts', { token: key.token, body: { count: 5 } })).status).toBe(201);
  const claimed = await request<{ account: { number: number } }>(original.url, 'POST', '/v1/accounts/claim', {
    token: key.token,
    body: { name: 'Backed Up', email: 'backed-up@example.com' },
  });
  expect(claimed.status).toBe(200);
  const hook = await request(original.url, 'POST', '/v1/webhooks', { token: key.token, body: { url: 'https://127.0.0.1:9/hook', events: ['account.breached'] } });
  expect(hook.status).toBe(201);
  const before = await snapshot(original, key.token, claimed.body.account.number);
  expect((before.events as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(6);

  // The drill: a custom-format dump of the live database (consistent: one snapshot)...
  const dump = path.join(dir, 'propdesk.dump');
  execFileSync('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, original.database.url]);
  const secrets = { CURSOR_SECRET: original.env.CURSOR_SECRET, CREDENTIALS_KEY: original.env.CREDENTIALS_KEY, WEBHOOK_SECRET_KEY: original.env.WEBHOOK_SECRET_KEY };
  await original.stop();
  original = undefined;

  // ...restored into a fresh, empty database.
  const fresh = await createTestDatabase('pd_restored');
  execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${fresh.url}`, dump]);

  restored = await startStack({ database: fresh, env: { ...secrets, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const after = await snapshot(restored, key.token, claimed.body.account.number);
  expect(after).toEqual(before);

  // And the restored stack carries on: new accounts are numbered after the restored ones, with their events.
  const more = await request<{ data: Array<{ number: number }> }>(restored.url, 'POST', '/v1/accounts', { token: key.token, body: { count: 1 } });
  expect(more.status).toBe(201);
  const maxBefore = Math.max(...(before.accounts as { data: Array<{ number: number }> }).data.map((a) => a.number));
  expect(more.body.data[0].number).toBeGreaterThan(maxBefore);
  const events = await request<{ data: unknown[] }>(restored.url, 'GET', '/v1/events?limit=200', { token: key.token });
  expect(events.body.data.length).toBe((before.events as { data: unknown[] }).data.length + 1);
});
