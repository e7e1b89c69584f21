/**
 * The SDK on a 429 from the real gateway: a key with a tiny limit (one read and one write a
 * minute) is refused with Retry-After; the SDK waits that long and tries again with the same
 * Idempotency-Key, and the request then runs, once. A wait longer than the client accepts, or no
 * retries allowed, answers the 429 as a PropDeskError at once. (The window is a minute: this suite
 * waits for most of one.)
 */
import { PropDesk, PropDeskError, type AnswerInfo } from '@propdesk/sdk';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it('waits Retry-After after a 429 and retries, a read and a write; the write runs once', async () => {
  const org = await stack.createOrg();
  const key = await stack.createKey(org.id);
  await stack.createAccounts(org.id, 2);
  await stack.admin.auth.call.setApiKeyLimits({ organizationId: org.id, apiKeyId: key.id, readPerMin: 1, writePerMin: 1 });
  const answers: AnswerInfo[] = [];
  const pd = new PropDesk({ apiKey: key.token, baseUrl: stack.url, onResponse: (a) => answers.push(a) });
  const strict = new PropDesk({ apiKey: key.token, baseUrl: stack.url, maxRetries: 0 });
  const impatient = new PropDesk({ apiKey: key.token, baseUrl: stack.url, maxRetryAfterSeconds: 1 });

  // The minute's one read and one write.
  await pd.listAccounts().firstPage();
  await pd.createTrader({ name: 'First', email: 'first@example.com' });
  answers.length = 0;

  const refused = (await strict.listAccounts().firstPage().catch((e: unknown) => e)) as PropDeskError;
  expect([refused.status, refused.code]).toEqual([429, 'rate_limited']);
  expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
  const notWaited = Date.now();
  const tooLong = (await impatient.listAccounts().firstPage().catch((e: unknown) => e)) as PropDeskError;
  expect(tooLong.status).toBe(429);
  expect(Date.now() - notWaited).toBeLessThan(1000);

  const started = Date.now();
  const [page, claimed] = await Promise.all([pd.listAccounts().firstPage(), pd.claimAccount({ name: 'Patient', email: 'patient@example.com' })]);
  const waited = (Date.now() - started) / 1000;
  expect(page.data).toHaveLength(2);
  const firstRefusals = answers.filter((a) => a.status === 429 && a.attempt === 0);
  expect(firstRefusals).toHaveLength(2);
  const retryAfter = Math.max(...firstRefusals.map((a) => Number(a.headers.get('retry-after'))));
  expect(waited).toBeGreaterThanOrEqual(retryAfter - 1);
  expect(answers.filter((a) => a.status === 200 || a.status === 201).map((a) => a.attempt).every((attempt) => attempt >= 1)).toBe(true);
  // The claim ran once: one account assigned, the one answered.
  const assigned = await new PropDesk({ apiKey: (await stack.createKey(org.id)).token, baseUrl: stack.url }).listAccounts({ assigned: true }).toArray();
  expect(assigned.map((a) => a.number)).toEqual([claimed.account.number]);
}, 150_000);
