/**
 * @propdesk/sdk against the real stack: a method per operation, async iteration over every page,
 * typed PropDeskErrors with the answer's request id, an Idempotency-Key on every write that makes a
 * retried write run once, executor routes with a session token, and an API key that appears
 * nowhere (the client, its errors, anything written to the console).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { OPERATIONS, PropDesk, PropDeskError, type AnswerInfo } from '@propdesk/sdk';
import { openApiDocument } from '../../gateway/src/routes';
import { startStack, type Stack } from '../support/stack';
import { checkResponse } from '../support/openapi-check';

let stack: Stack;
let orgId: string;
let apiKey: string;
let pd: PropDesk;
const answers: AnswerInfo[] = [];

beforeAll(async () => {
  stack = await startStack();
  orgId = (await stack.createOrg({ credits: 100 })).id;
  apiKey = (await stack.createKey(orgId)).token;
  pd = new PropDesk({ apiKey, baseUrl: stack.url, onResponse: (answer) => answers.push(answer) });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

afterEach(() => {
  // Every answer the SDK received is the one the OpenAPI document describes.
  const problems = answers.splice(0).flatMap((a) => checkResponse(a.method, a.template, a.status, a.body).map((p) => `${a.method} ${a.template} ${a.status}: ${p}`));
  expect(problems).toEqual([]);
});

describe('a method per operation', () => {
  it('has one for every /v1 operation of the served document, named by its operationId', () => {
    const document = openApiDocument() as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([, item]) => Object.values(item).map((op) => op.operationId));
    expect(Object.keys(OPERATIONS).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(typeof (pd as unknown as Record<string, unknown>)[id]).toBe('function');
  });

  it('takes path parameters first, then one object of fields, and answers the body', async () => {
    const { data } = await pd.createAccounts({ count: 2 });
    const [first] = data;
    expect(await pd.getAccount(first!.number)).toMatchObject({ number: first!.number, status: 'active' });
    const claimed = await pd.claimAccount({ name: 'Jane Trader', email: 'jane@example.com' });
    expect(claimed.trader.email).toBe('jane@example.com');
    const credentials = await pd.getCredentials(claimed.account.number);
    expect(credentials.login).toBe(claimed.account.number);
    const session = await pd.createExecutorSession({ account: claimed.account.number, password: credentials.password });
    // The executor routes take the session's token instead of the API key.
    expect((await pd.getExecutorAccount({}, { token: session.token })).number).toBe(claimed.account.number);
  });
});

describe('paging', () => {
  it('iterates every item of every page in order, and walks pages', async () => {
    const org = (await stack.createOrg()).id;
    const own = new PropDesk({ apiKey: (await stack.createKey(org)).token, baseUrl: stack.url, onResponse: (a) => answers.push(a) });
    const { data } = await own.createAccounts({ count: 5 });
    const numbers: number[] = [];
    for await (const account of own.listAccounts({ limit: 2 })) numbers.push(account.number);
    expect(numbers).toEqual(data.map((a) => a.number));
    const pages = [];
    for await (const page of own.listAccounts({ limit: 2 }).pages()) pages.push(page.data.length);
    expect(pages).toEqual([2, 2, 1]);
    const first = await own.listAccounts({ limit: 2 }).firstPage();
    expect(first.data).toHaveLength(2);
    const rest = await own.listAccounts({ limit: 2, cursor: first.next_cursor as string }).toArray();
    expect(rest.map((a) => a.number)).toEqual(numbers.slice(2));
    expect(await own.listAccounts({ limit: 2 }).toArray(3)).toHaveLength(3);
    // An account's own events by sequence, across pages.
    const events = await own.listEvents({ account: data[0]!.number, limit: 1 }).toArray();
    expect(events.map((e) => e.sequence)).toEqual([1]);
  });
});

describe('errors', () => {
  it('are PropDeskErrors with status, code, message, param and the answer’s X-Request-Id', async () => {
    const missing = await pd.getAccount(999_999_999).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PropDeskError);
    const error = missing as PropDeskError;
    expect({ status: error.status, code: error.code, param: error.param }).toEqual({ status: 404, code: 'not_found', param: undefined });
    expect(error.message.length).toBeGreaterThan(0);
    const last = answers[answers.length - 1]!;
    expect(error.requestId).toBe(last.headers.get('x-request-id'));
    expect(error.requestId).toMatch(/\S{8,}/);

    const invalid = (await pd.listEvents({ account: 0 }).firstPage().catch((e: unknown) => e)) as PropDeskError;
    expect([invalid.status, invalid.code, invalid.param]).toEqual([400, 'invalid_request', 'account']);

    const readOnly = new PropDesk({ apiKey: (await stack.createKey(orgId, ['accounts:read'])).token, baseUrl: stack.url, onResponse: (a) => answers.push(a) });
    const forbidden = (await readOnly.createAccounts({ count: 1 }).catch((e: unknown) => e)) as PropDeskError;
    expect([forbidden.status, forbidden.code]).toEqual([403, 'missing_scope']);
    expect(forbidden.message).toContain('accounts:write');

    const unknown = new PropDesk({ apiKey: `pfx_live_${'x'.repeat(40)}`, baseUrl: stack.url });
    const unauthorized = (await unknown.listAccounts().firstPage().catch((e: unknown) => e)) as PropDeskError;
    expect([unauthorized.status, unauthorized.code]).toEqual([401, 'invalid_api_key']);
  });
});

/** A proxy in front of the gateway that forwards the first request and then drops its answer. */
async function droppingProxy(target: string): Promise<{ url: string; keys: Array<string | undefined>; close(): Promise<void> }> {
  const keys: Array<string | undefined> = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      keys.push(req.headers['idempotency-key'] as string | undefined);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection' && name !== 'content-length')) as Record<string, string>;
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await answer.arrayBuffer());
      // The gateway ran the first request; its caller never hears of it (the connection is cut).
      if (keys.length === 1) return req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keys,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('idempotency', () => {
  it('sends a new Idempotency-Key with each write and the same one with its retries: a write whose answer was lost runs once', async () => {
    const org = (await stack.createOrg()).id;
    const key = (await stack.createKey(org)).token;
    const direct = new PropDesk({ apiKey: key, baseUrl: stack.url });
    await direct.createAccounts({ count: 3 });
    const proxy = await droppingProxy(stack.url);
    try {
      const viaProxy = new PropDesk({ apiKey: key, baseUrl: proxy.url, retryBaseDelayMs: 50 });
      const claimed = await viaProxy.claimAccount({ name: 'Once', email: 'once@example.com' });
      expect(proxy.keys).toHaveLength(2);
      expect(proxy.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.keys[1]).toBe(proxy.keys[0]);
      const assigned = await direct.listAccounts({ assigned: true }).toArray();
      expect(assigned.map((a) => a.number)).toEqual([claimed.account.number]);
      // A second write has a key of its own.
      await viaProxy.createTrader({ name: 'Other', email: 'other@example.com' });
      expect(proxy.keys[2]).not.toBe(proxy.keys[0]);
      // A key given by the caller is the one sent.
      await viaProxy.createTrader({ name: 'Third', email: 'third@example.com' }, { idempotencyKey: 'order-8812' });
      expect(proxy.keys[3]).toBe('order-8812');
    } finally {
      await proxy.close();
    }
  });
});

describe('the API key', () => {
  it('appears nowhere: not in the client, its errors, or anything written to the console', async () => {
    const written: string[] = [];
    const spies = [
      jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
      jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => jest.spyOn(console, level).mockImplementation((...args: unknown[]) => void written.push(args.map(String).join(' ')))),
    ];
    const seen: string[] = [];
    try {
      const client = new PropDesk({ apiKey, baseUrl: stack.url, retryBaseDelayMs: 10 });
      seen.push(inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client));
      const error = (await client.getAccount(999_999_999).catch((e: unknown) => e)) as PropDeskError;
      seen.push(inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error), String(error.stack));
      const refused = new PropDesk({ apiKey, baseUrl: 'http://127.0.0.1:9', retryBaseDelayMs: 10 });
      const failed = (await refused.listAccounts().firstPage().catch((e: unknown) => e)) as PropDeskError;
      expect(failed.code).toBe('connection_failed');
      seen.push(inspect(failed, { depth: 10, showHidden: true }), String(failed.stack));
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    for (const text of [...seen, ...written]) expect(text).not.toContain(apiKey);
    expect(seen.join('\n')).not.toContain(apiKey.slice(9));
  });
});
