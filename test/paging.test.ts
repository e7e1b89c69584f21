/**
 * Issue 2 item 6 over HTTP: GET /v1/accounts pages with an opaque, authenticated keyset cursor;
 * limit default 50, clamped at 200, bad limits 400; tampered and foreign cursors 400
 * invalid_cursor; a key sees its own organization only.
 */
import { startStack, type Stack } from './support/stack';
import { client, type ErrorBody } from './support/http';

interface Account {
  number: number;
  trader_id: string | null;
  status: string;
}
interface Page {
  data: Account[];
  next_cursor: string | null;
}

let stack: Stack;
let orgA: { id: string; numbers: number[]; token: string };
let orgB: { id: string; numbers: number[]; token: string };

beforeAll(async () => {
  stack = await startStack();
  const a = await stack.createOrg({ credits: 1000 });
  const b = await stack.createOrg({ credits: 1000 });
  orgA = { id: a.id, numbers: await stack.createAccounts(a.id, 230), token: (await stack.createKey(a.id)).token };
  orgB = { id: b.id, numbers: await stack.createAccounts(b.id, 3), token: (await stack.createKey(b.id)).token };
});

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/accounts paging', () => {
  it('answers exactly {data, next_cursor} with 50 accounts by default', async () => {
    const res = await client(stack.url, orgA.token).get<Page>('/v1/accounts');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'next_cursor']);
    expect(res.body.data).toHaveLength(50);
    expect(res.body.data[0]?.trader_id).toBeNull();
    expect(typeof res.body.next_cursor).toBe('string');
  });

  it('clamps a limit above 200 to 200', async () => {
    const res = await client(stack.url, orgA.token).get<Page>('/v1/accounts', '/v1/accounts?limit=1000');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(200);
  });

  it.each(['0', '-1', '1.5', 'abc', ''])('answers limit=%s 400 invalid_request naming limit', async (limit) => {
    const res = await client(stack.url, orgA.token).get<ErrorBody>('/v1/accounts', `/v1/accounts?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
  });

  it('walks every account once, in order, while new accounts are created, and ends with next_cursor null', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/v1/accounts?limit=60${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await client(stack.url, orgA.token).get<Page>('/v1/accounts', path);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((a) => a.number));
      cursor = res.body.next_cursor;
      pages += 1;
      if (pages === 2) await stack.createAccounts(orgA.id, 5);
    } while (cursor !== null && pages < 20);
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    for (const n of orgA.numbers) expect(seen).toContain(n);
    expect(seen.length).toBe(235);
  });

  it('answers a tampered cursor 400 invalid_cursor', async () => {
    const first = await client(stack.url, orgA.token).get<Page>('/v1/accounts', '/v1/accounts?limit=2');
    const cursor = first.body.next_cursor as string;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [tampered, 'garbage', 'eyJ4IjoxfQ.abc']) {
      const res = await client(stack.url, orgA.token).get<ErrorBody>('/v1/accounts', `/v1/accounts?cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it("answers another organization's cursor 400 invalid_cursor", async () => {
    const first = await client(stack.url, orgA.token).get<Page>('/v1/accounts', '/v1/accounts?limit=2');
    const res = await client(stack.url, orgB.token).get<ErrorBody>('/v1/accounts', `/v1/accounts?cursor=${encodeURIComponent(first.body.next_cursor as string)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it('shows a key only its own organization, and another organization\'s account is 404', async () => {
    const res = await client(stack.url, orgB.token).get<Page>('/v1/accounts');
    expect(res.body.data.map((a) => a.number).sort()).toEqual([...orgB.numbers].sort());
    const foreign = await client(stack.url, orgB.token).get<ErrorBody>('/v1/accounts/{number}', `/v1/accounts/${orgA.numbers[0]}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const missing = await client(stack.url, orgB.token).get<ErrorBody>('/v1/accounts/{number}', '/v1/accounts/987654321');
    expect(missing.text).toBe(foreign.text);
  });

  it('filters by assigned and status', async () => {
    const unassigned = await client(stack.url, orgB.token).get<Page>('/v1/accounts', '/v1/accounts?assigned=false&status=active');
    expect(unassigned.status).toBe(200);
    expect(unassigned.body.data).toHaveLength(3);
    const bad = await client(stack.url, orgB.token).get<ErrorBody>('/v1/accounts', '/v1/accounts?status=sleeping');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
  });

  it('answers requests that arrive together (coalesced into one call) each with its own organization, page and errors', async () => {
    const metricsBatches = async () => {
      const text = await (await fetch(`${stack.url}/metrics`)).text();
      const count = Number(/propdesk_gateway_list_accounts_call_size_count (\d+)/.exec(text)?.[1] ?? 0);
      const lone = Number(/propdesk_gateway_list_accounts_call_size_bucket\{le="1"\} (\d+)/.exec(text)?.[1] ?? 0);
      return count - lone;
    };
    const foreignCursor = (await client(stack.url, orgA.token).get<Page>('/v1/accounts', '/v1/accounts?limit=2')).body.next_cursor as string;
    const before = await metricsBatches();
    // Bursts until at least one call carried several requests (they must land in one event-loop turn).
    for (let burst = 0; burst < 10 && (await metricsBatches()) === before; burst += 1) {
      const asks = Array.from({ length: 24 }, (_v, i) => {
        const kind = i % 4;
        if (kind === 0) return { org: orgA, path: '/v1/accounts?limit=7', expect: 200 };
        if (kind === 1) return { org: orgB, path: '/v1/accounts', expect: 200 };
        if (kind === 2) return { org: orgB, path: `/v1/accounts?cursor=${encodeURIComponent(foreignCursor)}`, expect: 400 };
        return { org: orgA, path: '/v1/accounts?status=active&limit=3', expect: 200 };
      });
      const answers = await Promise.all(asks.map((ask) => client(stack.url, ask.org.token).get<Page & ErrorBody>('/v1/accounts', ask.path)));
      answers.forEach((res, i) => {
        const ask = asks[i];
        expect(res.status).toBe(ask.expect);
        if (ask.expect === 400) return expect(res.body.error.code).toBe('invalid_cursor');
        const numbers = res.body.data.map((a) => a.number);
        expect(numbers.every((n) => ask.org.numbers.includes(n))).toBe(true);
        if (ask.org === orgB) expect(numbers.sort()).toEqual([...orgB.numbers].sort());
        else expect(numbers).toEqual(orgA.numbers.slice(0, i % 4 === 0 ? 7 : 3));
      });
    }
    expect(await metricsBatches()).toBeGreaterThan(before);
  });
});
