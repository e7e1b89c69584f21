/**
 * SPEC 5 and 6 on every /v1 answer: an error carries the JSON envelope, every answer carries the
 * RateLimit-* headers. OPTIONS and methods a path does not have are 405 method_not_allowed with
 * an Allow header (no CORS is configured); writes whose body is not declared JSON are 415
 * unsupported_media_type; oversized headers are refused with the envelope, a long cursor as
 * invalid_cursor; HTTP the parser refuses is answered with the envelope too.
 */
import { connect } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { request, type ErrorBody } from '../support/http';
import { documentedErrorCodes } from '../support/openapi-check';
import { API_ERRORS } from '@propdesk/kit';

let stack: Stack;
let token: string;
let number: number;

beforeAll(async () => {
  stack = await startStack();
  const org = await stack.createOrg();
  token = (await stack.createKey(org.id)).token;
  [number] = (await stack.createAccounts(org.id, 1)) as [number];
});

afterAll(async () => {
  await stack?.stop();
});

function expectEnvelope(res: { status: number; headers: Headers; body: unknown }, code: string): void {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(API_ERRORS[code as keyof typeof API_ERRORS]).toBe(res.status);
}

function expectRateLimitHeaders(res: { headers: Headers }): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers.get(name)).toMatch(/^\d+$/);
}

/** Raw HTTP/1.1 on a socket, for what fetch refuses to send. */
function raw(text: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
  });
}

describe('methods a path does not have', () => {
  it.each([
    ['OPTIONS', '/v1/accounts', 'GET, HEAD, POST'],
    ['PATCH', '/v1/accounts', 'GET, HEAD, POST'],
    ['DELETE', '/v1/accounts', 'GET, HEAD, POST'],
    ['PUT', '/v1/accounts/1', 'GET, HEAD'],
    ['OPTIONS', '/v1/accounts/1/trader', 'PUT, DELETE'],
    ['GET', '/v1/accounts/claim', 'POST'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
  ])('answers %s %s 405 method_not_allowed with Allow: %s, with or without a key', async (method, path, allow) => {
    for (const withKey of [true, false]) {
      const res = await request(stack.url, method, path, withKey ? { token } : {});
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      if (method !== 'HEAD') expectEnvelope(res, 'method_not_allowed');
      expectRateLimitHeaders(res);
    }
  });

  it('routes a path as Express would: any letter case, one trailing slash, a literal segment before a parameter', async () => {
    for (const path of ['/v1/accounts/', '/V1/Accounts', `/v1/accounts/${number}/`, `/v1/ACCOUNTS/${number}`]) {
      const res = await request(stack.url, 'GET', path, { token });
      expect(res.status).toBe(200);
    }
    const claim = await request(stack.url, 'GET', '/v1/accounts/claim/', { token });
    expect(claim.status).toBe(405);
    expect(claim.headers.get('allow')).toBe('POST');
    for (const path of ['/v1/accounts//', `/v1/accounts/${number}/trader/extra`, '/v1//accounts']) {
      const res = await request(stack.url, 'GET', path, { token });
      expect(res.status).toBe(404);
      expectEnvelope(res, 'not_found');
    }
  });

  it('answers an unknown path 404 not_found for every method, with the headers', async () => {
    for (const method of ['GET', 'POST', 'OPTIONS', 'PATCH', 'DELETE']) {
      const res = await request(stack.url, method, '/v1/no/such/thing', { token });
      expect(res.status).toBe(404);
      expectEnvelope(res, 'not_found');
      expectRateLimitHeaders(res);
    }
  });

  it('answers TRACE and CONNECT 405 with the envelope too', async () => {
    const trace = await raw(`TRACE /v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(trace.status).toBe(405);
    expect(trace.headers).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
    expect(trace.headers).toMatch(/\r\nratelimit-limit: \d+\r\n/i);
    expect(JSON.parse(trace.body)).toMatchObject({ error: { code: 'method_not_allowed' } });
    const connect = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(connect.status).toBe(405);
    expect(JSON.parse(connect.body)).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('answers a method the HTTP parser does not know with the envelope', async () => {
    const res = await raw('FROB /v1/accounts HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'invalid_request' } });
  });
});

describe('malformed ids', () => {
  it('name nothing: 404 not_found on every route that takes one, never a 400 about a field REST does not have', async () => {
    const paths: Array<[string, string, string]> = [
      ['POST', '/v1/accounts/{number}/positions/{id}/close', `/v1/accounts/${number}/positions/fXJfGYCdUG/close`],
      ['GET', '/v1/traders/{id}', '/v1/traders/FlpFnQmPsSx'],
      ['DELETE', '/v1/webhooks/{id}', '/v1/webhooks/XES94UxMf'],
      ['POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', '/v1/webhooks/XES94UxMf/deliveries/bFqjDJ8nACy/retry'],
    ];
    for (const [method, template, path] of paths) {
      const res = await request(stack.url, method, path, { token, template });
      expect([path, res.status, (res.body as ErrorBody).error.code]).toEqual([path, 404, 'not_found']);
    }
  });
});

describe('request bodies', () => {
  it.each([
    ['text/plain', '{"name":"Plain","email":"plain@example.com"}'],
    ['application/x-www-form-urlencoded', 'name=Form&email=form@example.com'],
    ['application/json; charset=latin1', '{"name":"Latin","email":"latin@example.com"}'],
    ['application/jsonx', '{"name":"X","email":"x@example.com"}'],
    [undefined, '{"name":"None","email":"none@example.com"}'],
  ])('refuses a write whose body is %s with 415 unsupported_media_type', async (type, body) => {
    const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
    const res = await fetch(`${stack.url}/v1/traders`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: Buffer.from(body) });
    const parsed = (await res.json()) as ErrorBody;
    expect(res.status).toBe(415);
    expect(parsed.error.code).toBe('unsupported_media_type');
    expectRateLimitHeaders(res);
  });

  it('takes application/json with any letter case and a utf-8 charset', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=UTF-8', 'application/json;charset="utf-8"']) {
      const res = await request(stack.url, 'POST', '/v1/traders', { token, headers: { 'content-type': type }, body: '{"name":"Typed","email":"typed@example.com"}' });
      expect([type, res.status]).toEqual([type, expect.any(Number)]);
      expect([200, 201]).toContain(res.status);
    }
  });

  it('lets a write that needs no body go without one, whatever its Content-Type', async () => {
    const plain = await fetch(`${stack.url}/v1/accounts/${number}/credentials/rotate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(plain.status).toBe(200);
    const empty = await fetch(`${stack.url}/v1/accounts/${number}/credentials/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'content-length': '0' },
    });
    expect(empty.status).toBe(200);
  });

  it('documents 415 for every write and 405 and 431 among the error codes', async () => {
    expect(documentedErrorCodes('post', '/v1/traders')).toContain('unsupported_media_type');
    expect(documentedErrorCodes('post', '/v1/accounts/{number}/archive')).toContain('unsupported_media_type');
    const document = (await (await fetch(`${stack.url}/v1/openapi.json`)).json()) as { components: Record<string, Record<string, unknown>> };
    const text = JSON.stringify(document.components);
    for (const code of ['method_not_allowed', 'unsupported_media_type', 'headers_too_large']) expect(text).toContain(code);
  });
});

describe('oversized headers', () => {
  it('refuses a 20 KB cursor as invalid_cursor, with the headers', async () => {
    const res = await request(stack.url, 'GET', `/v1/accounts?cursor=${'A'.repeat(20_000)}`, { token });
    expect(res.status).toBe(400);
    expectEnvelope(res, 'invalid_cursor');
    expectRateLimitHeaders(res);
  });

  it('refuses a 20 KB header on any route with the envelope, not an empty answer', async () => {
    const res = await request(stack.url, 'GET', '/v1/accounts', { token, headers: { 'x-padding': 'p'.repeat(20_000) } });
    expect(res.status).toBe(200);
    const unknown = await request(stack.url, 'GET', '/v1/nope', { headers: { 'x-padding': 'p'.repeat(20_000) } });
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown, 'not_found');
  });

  it('answers headers beyond what the server reads with 431 and the JSON envelope', async () => {
    const res = await raw(`GET /v1/accounts HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(200_000)}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'headers_too_large' } });
  });
});
