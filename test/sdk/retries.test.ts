/**
 * The SDK's retries against the real stack: a 503 from a stopped service is retried at most three
 * times with backoff (and succeeds once the service is back), and so is a connection that fails;
 * a write that may have run without an Idempotency-Key (the executor's order) is never retried.
 * Rate limits (429) have a suite of their own (rate-limit-retry.test.ts), for their minute.
 */
import { createLogger } from '@propdesk/kit';
import { startTcpProxy, waitUntil, type TcpProxy } from '@propdesk/kit/testing';
import { PropDesk, PropDeskError, type AnswerInfo } from '@propdesk/sdk';
import { start as startWebhooks } from '../../services/webhooks/src/main';
import { startStack, type StartedPart, type Stack } from '../support/stack';

let stack: Stack;
let apiKey: string;
let proxy: TcpProxy;
let restarted: StartedPart | undefined;
let executor: { account: number; token: string };

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  apiKey = (await stack.createKey(org.id)).token;
  const pd = new PropDesk({ apiKey, baseUrl: stack.url });
  const { data } = await pd.createAccounts({ count: 1 });
  const account = data[0]!.number;
  const { password } = await pd.getCredentials(account);
  executor = { account, token: (await pd.createExecutorSession({ account, password })).token };
  await stack.admin.trading.call.publishQuote({ quote: { symbol: 'EURUSD', bid: 1.1, ask: 1.1001, time: new Date() } });
  proxy = await startTcpProxy('127.0.0.1', new URL(stack.url).port ? Number(new URL(stack.url).port) : 80);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await restarted?.stop();
  await stack?.stop();
});

function client(baseUrl = stack.url, retryBaseDelayMs = 100): { pd: PropDesk; answers: AnswerInfo[] } {
  const answers: AnswerInfo[] = [];
  return { pd: new PropDesk({ apiKey, baseUrl, retryBaseDelayMs, onResponse: (a) => answers.push(a) }), answers };
}

const order = { symbol: 'EURUSD', side: 'buy' as const, volume: 0.01, type: 'market' as const };

describe('503 unavailable', () => {
  it('retries a read while the service is down and answers once it is back', async () => {
    const port = stack.services.webhooks.port;
    await stack.stopService('webhooks');
    // Backoff of 1, 2, 4 s (at least half of each): room for the service to start again and the
    // gateway to reconnect on a loaded machine, before the third retry.
    const { pd, answers } = client(stack.url, 1000);
    const listing = pd.listWebhooks().firstPage();
    await waitUntil(() => answers.length >= 1, { what: 'the first 503' });
    restarted = await startWebhooks({ ...stack.env, WEBHOOKS_GRPC_PORT: String(port) }, { logger: createLogger('webhooks', { level: 'silent' }) });
    expect((await listing).data).toEqual([]);
    expect(answers[0]!.status).toBe(503);
    expect(answers[answers.length - 1]!.status).toBe(200);
    expect(answers.length).toBeLessThanOrEqual(4);
  });

  it('gives up after three retries with backoff: a read and a write with its Idempotency-Key, four attempts each', async () => {
    await stack.stopService('accounts');
    for (const call of [(pd: PropDesk) => pd.getAccount(executor.account), (pd: PropDesk) => pd.claimAccount({ name: 'Late', email: 'late@example.com' })]) {
      const { pd, answers } = client();
      const started = Date.now();
      const error = (await call(pd).catch((e: unknown) => e)) as PropDeskError;
      expect(error).toBeInstanceOf(PropDeskError);
      expect([error.status, error.code]).toEqual([503, 'unavailable']);
      expect(answers.map((a) => [a.status, a.attempt])).toEqual([
        [503, 0],
        [503, 1],
        [503, 2],
        [503, 3],
      ]);
      // Backoff of 100, 200, 400 ms, each at least half of it (jitter).
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(error.requestId).toBe(answers[3]!.requestId);
    }
  });

  it('never retries a write that may have run without an Idempotency-Key (the executor’s order)', async () => {
    const { pd, answers } = client();
    const error = (await pd.placeExecutorOrder(order, { token: executor.token }).catch((e: unknown) => e)) as PropDeskError;
    expect(error.status).toBe(503);
    expect(answers).toHaveLength(1);
  });
});

describe('connection failures', () => {
  it('retries a read whose connection fails and answers once the way is open', async () => {
    proxy.down();
    const { pd, answers } = client(`http://127.0.0.1:${proxy.port}`);
    const refusedBefore = proxy.refused;
    const reading = pd.getOpenApiDocument();
    await waitUntil(() => proxy.refused > refusedBefore, { what: 'a refused connection' });
    proxy.up();
    expect(await reading).toMatchObject({ openapi: '3.1.0' });
    expect(answers.map((a) => a.status)).toEqual([200]);
    expect(answers[0]!.attempt).toBeGreaterThanOrEqual(1);
  });

  it('gives up after three retries, with a PropDeskConnectionError; an unkeyed write whose request may have gone out is tried once', async () => {
    proxy.down();
    try {
      const { pd } = client(`http://127.0.0.1:${proxy.port}`);
      let before = proxy.refused;
      const failed = (await pd.getOpenApiDocument().catch((e: unknown) => e)) as PropDeskError;
      expect([failed.name, failed.status, failed.code, failed.requestId]).toEqual(['PropDeskConnectionError', 0, 'connection_failed', null]);
      expect(proxy.refused - before).toBe(4);

      before = proxy.refused;
      const keyed = (await pd.createTrader({ name: 'Keyed', email: 'keyed@example.com' }).catch((e: unknown) => e)) as PropDeskError;
      expect(keyed.code).toBe('connection_failed');
      expect(proxy.refused - before).toBe(4);

      before = proxy.refused;
      const unkeyed = (await pd.placeExecutorOrder(order, { token: executor.token }).catch((e: unknown) => e)) as PropDeskError;
      expect(unkeyed.code).toBe('connection_failed');
      expect(proxy.refused - before).toBe(1);
    } finally {
      proxy.up();
    }
  });

  it('retries an unkeyed write whose connection never opened (nothing was sent)', async () => {
    const closed = await startTcpProxy('127.0.0.1', 9);
    const port = closed.port;
    await closed.close();
    const { pd } = client(`http://127.0.0.1:${port}`);
    const started = Date.now();
    const error = (await pd.placeExecutorOrder(order, { token: executor.token }).catch((e: unknown) => e)) as PropDeskError;
    expect(error.code).toBe('connection_failed');
    expect(error.message).toContain('ECONNREFUSED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });
});
