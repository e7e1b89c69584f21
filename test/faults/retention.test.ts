/**
 * Issue 12, item 4: retention jobs, each with its horizon from the environment (kit/retention.ts).
 * Rows are aged by moving their timestamps back (what waiting would do), then one pass of each
 * service's scheduler runs (the timer would run the same pass every RETENTION_INTERVAL_MS):
 * - webhooks: delivered deliveries (and their attempts) and the service's copy of events past
 *   their horizons go; a pending delivery and the event it needs stay, and delivery goes on;
 * - ended panel sessions (auth) and ended executor sessions (accounts) go, live ones stay;
 * - per-minute equity past its horizon is compacted into the hourly rollups, and the account's
 *   report is the same before and after.
 */
import { Client } from 'pg';
import { request } from '../support/http';
import { startStack, type Stack } from '../support/stack';
import { generateCertificate, startHttpsReceiver, waitUntil, type HttpsReceiver, type TestCertificate } from '@propdesk/kit/testing';

jest.setTimeout(120_000);

let stack: Stack;
let cert: TestCertificate;
let receiver: HttpsReceiver;
let db: Client;
let token: string;
let orgId: string;

beforeAll(async () => {
  cert = generateCertificate();
  receiver = await startHttpsReceiver(cert);
  receiver.on('/down', () => ({ status: 500 }));
  stack = await startStack({
    env: {
      WEBHOOK_CA_FILE: cert.certFile,
      // A failed delivery waits an hour for its retry: it stays pending throughout the test.
      WEBHOOK_RETRY_SCHEDULE: '3600',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      // The passes below are run by hand; the timer stays out of the way.
      RETENTION_INTERVAL_MS: '3600000',
      WEBHOOK_DELIVERIES_RETENTION: '1h',
      WEBHOOK_EVENTS_RETENTION: '1h',
      SESSIONS_RETENTION: '1h',
      EQUITY_MINUTES_RETENTION: '2d',
    },
  });
  const org = await stack.createOrg();
  orgId = org.id;
  token = (await stack.createKey(org.id)).token;
  db = new Client({ connectionString: stack.database.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await receiver?.close();
  cert?.remove();
});

const count = async (table: string, where = 'TRUE'): Promise<number> => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)).rows[0].n);

/** The deliveries are made by the webhooks service's own loop: poll the tables it writes. */
const deliveriesReach = (check: () => Promise<boolean>) => waitUntil(check, { timeoutMs: 30_000, intervalMs: 200, what: 'deliveries' });

test('webhooks: delivered deliveries and unreferenced events past their horizon go; pending ones and their events stay', async () => {
  const ok = await request<{ id: string }>(stack.url, 'POST', '/v1/webhooks', { token, body: { url: receiver.url('/ok'), events: ['account.created'] } });
  const down = await request<{ id: string }>(stack.url, 'POST', '/v1/webhooks', { token, body: { url: receiver.url('/down'), events: ['account.assigned'] } });
  expect([ok.status, down.status]).toEqual([201, 201]);
  await stack.createAccounts(orgId, 3);
  expect((await request(stack.url, 'POST', '/v1/accounts/claim', { token, body: { name: 'Old Trader', email: 'old@example.com' } })).status).toBe(200);
  await deliveriesReach(async () => (await count('webhooks.deliveries', "status = 'succeeded'")) === 3 && (await count('webhooks.delivery_attempts')) === 4);
  expect(await count('webhooks.deliveries', "status = 'pending'")).toBe(1);
  expect(await count('webhooks.events')).toBe(4);

  // Two hours pass.
  await db.query("UPDATE webhooks.deliveries SET updated_at = updated_at - interval '2 hours', created_at = created_at - interval '2 hours'");
  await db.query("UPDATE webhooks.events SET received_at = received_at - interval '2 hours'");
  // Something recent, delivered: under the horizon, it stays.
  await stack.createAccounts(orgId, 1);
  await deliveriesReach(async () => (await count('webhooks.deliveries', "status = 'succeeded'")) === 4);

  const removed = await stack.services.webhooks.retention!.runOnce();
  expect(removed).toEqual({ 'webhook deliveries': 3, 'webhook events': 3, 'idempotency records': 0, 'audit entries': 0 });
  expect(await count('webhooks.deliveries')).toBe(2);
  expect(await count('webhooks.deliveries', "status = 'pending'")).toBe(1);
  expect(await count('webhooks.delivery_attempts')).toBe(2);
  expect((await db.query("SELECT type FROM webhooks.events ORDER BY type")).rows.map((r) => r.type)).toEqual(['account.assigned', 'account.created']);

  // What the API shows, and delivery goes on.
  const listed = await request<{ data: unknown[] }>(stack.url, 'GET', `/v1/webhooks/${ok.body.id}/deliveries`, { token });
  expect(listed.status).toBe(200);
  expect(listed.body.data).toHaveLength(1);
  await stack.createAccounts(orgId, 1);
  await deliveriesReach(async () => (await count('webhooks.deliveries', "status = 'succeeded'")) === 2);
  // A second pass finds nothing more to do.
  expect(await stack.services.webhooks.retention!.runOnce()).toEqual({ 'webhook deliveries': 0, 'webhook events': 0, 'idempotency records': 0, 'audit entries': 0 });
});

test('ended panel and executor sessions past the horizon go; live and recently ended ones stay', async () => {
  const user = await stack.createUser(orgId);
  const live = await stack.panelLogin(user.email, user.password);
  await stack.panelLogin(user.email, user.password);
  await stack.panelLogin(user.email, user.password);
  // One session expired two hours ago, one expired a minute ago.
  await db.query(`UPDATE auth.sessions SET expires_at = now() - interval '2 hours' WHERE id = (SELECT id FROM auth.sessions ORDER BY created_at LIMIT 1 OFFSET 1)`);
  await db.query(`UPDATE auth.sessions SET expires_at = now() - interval '1 minute' WHERE id = (SELECT id FROM auth.sessions ORDER BY created_at LIMIT 1 OFFSET 2)`);

  const [account] = await stack.createAccounts(orgId, 1);
  await db.query(
    `INSERT INTO accounts.executor_sessions (account_number, token_sha256, expires_at, revoked_at, created_at) VALUES
       ($1, 'live', now() + interval '1 day', NULL, now()),
       ($1, 'expired-long-ago', now() - interval '3 hours', NULL, now() - interval '1 day'),
       ($1, 'revoked-long-ago', now() + interval '1 day', now() - interval '2 hours', now() - interval '3 hours'),
       ($1, 'revoked-just-now', now() + interval '1 day', now() - interval '1 minute', now() - interval '1 hour')`,
    [account],
  );

  expect((await stack.services.auth.retention!.runOnce())['panel sessions']).toBe(1);
  expect((await stack.services.accounts.retention!.runOnce())['executor sessions']).toBe(2);
  expect(await count('auth.sessions')).toBe(2);
  expect((await db.query('SELECT token_sha256 FROM accounts.executor_sessions ORDER BY token_sha256')).rows.map((r) => r.token_sha256)).toEqual(['live', 'revoked-just-now']);
  // The live panel session still works.
  const me = await request(stack.url, 'GET', '/panel/api/me', { headers: { cookie: live } });
  expect(me.status).toBe(200);
});

test('equity minutes past the horizon are compacted into hours; the report is unchanged', async () => {
  const [account] = await stack.createAccounts(orgId, 1);
  // Five days of history, three hours a day, one row a minute: a wave with a dip, the balance
  // stepping each day; plus the last hour.
  await db.query(
    `INSERT INTO accounts.equity_minutes (account_number, minute, open, high, low, close, balance)
     SELECT $1::bigint, t, e, e + 7, CASE WHEN m = 100 THEN e - 900 ELSE e - 4 END, e, 100000 + d * 50
       FROM generate_series(0, 4) AS d, generate_series(0, 179) AS m,
            LATERAL (SELECT date_trunc('hour', now()) - make_interval(days => d + 1) - interval '3 hours' + make_interval(mins => m) AS t) tt,
            LATERAL (SELECT 100000 + round((sin(m / 13.0 + d) * 300)::numeric, 2) + d * 40 AS e) x
     UNION ALL
     SELECT $1::bigint, date_trunc('minute', now()) - make_interval(mins => m), 100500, 100510, 100490, 100505 - m, 100250
       FROM generate_series(1, 30) AS m`,
    [account],
  );
  const report = async () => {
    const res = await request<Record<string, unknown>>(stack.url, 'GET', `/v1/accounts/${account}/report`, { token });
    expect(res.status).toBe(200);
    // Everything but the time it was generated.
    return JSON.parse(JSON.stringify(res.body, (key, value: unknown) => (key === 'generated_at' ? undefined : value))) as Record<string, unknown>;
  };
  const before = await report();
  const history = before.balance_equity_history as unknown[];
  expect(history.length).toBeGreaterThanOrEqual(5);
  const minutesBefore = await count('accounts.equity_minutes', `account_number = ${account}`);
  expect(minutesBefore).toBe(5 * 180 + 30);

  const removed = await stack.services.accounts.retention!.runOnce();
  // Everything but the most recent day and the last hour is past the two-day horizon.
  expect(removed['equity minutes']).toBe(4 * 180);
  expect(await count('accounts.equity_minutes', `account_number = ${account} AND minute < now() - interval '2 days'`)).toBe(0);
  expect(await count('accounts.equity_minutes', `account_number = ${account}`)).toBe(180 + 30);
  expect(await count('accounts.equity_hours', `account_number = ${account}`)).toBeGreaterThanOrEqual(4 * 3);

  const after = await report();
  expect(after).toEqual(before);
  // The equity curve still spans the whole history and keeps the dip.
  const curve = await request<{ data: Array<{ time: string; equity: number }> }>(stack.url, 'GET', `/v1/accounts/${account}/equity`, { token });
  expect(curve.status).toBe(200);
  expect(Math.min(...curve.body.data.map((p) => p.equity))).toBeLessThan(99_500);
  expect(new Date(curve.body.data[0].time).getTime()).toBeLessThan(Date.now() - 5 * 86_400_000);
});

test('Idempotency-Key records past the key lifetime go, in accounts and webhooks; younger ones stay and replay', async () => {
  const write = (path: string, key: string, body: unknown) => request<{ data?: Array<{ number: number }>; id?: string }>(stack.url, 'POST', path, { token, headers: { 'idempotency-key': key }, body });
  await write('/v1/accounts', 'retention-old', { count: 1 });
  const young = await write('/v1/accounts', 'retention-young', { count: 1 });
  await write('/v1/webhooks', 'retention-old-hook', { url: receiver.url('/retained'), events: ['account.created'] });
  await db.query(`UPDATE accounts.idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'retention-old'`);
  await db.query(`UPDATE webhooks.idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'retention-old-hook'`);

  expect((await stack.services.accounts.retention!.runOnce())['idempotency records']).toBe(1);
  expect((await stack.services.webhooks.retention!.runOnce())['idempotency records']).toBe(1);
  expect((await db.query(`SELECT idempotency_key FROM accounts.idempotency_records WHERE idempotency_key LIKE 'retention-%'`)).rows).toEqual([{ idempotency_key: 'retention-young' }]);
  // The young key still answers its first answer, from the owner's record.
  const again = await write('/v1/accounts', 'retention-young', { count: 1 });
  expect(again.text).toBe(young.text);
});
