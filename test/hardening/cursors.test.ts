/**
 * SPEC 7: a client can neither build nor decode a cursor. Every list's cursor is sealed
 * (authenticated encryption bound to the organization, the list and its filters): it decodes to
 * nothing readable, any changed character is invalid_cursor, another organization's or list's
 * cursor is invalid_cursor, and the event feed's cursor tells nothing of other organizations'
 * volume, not even through its length.
 */
import { startStack, type Stack } from '../support/stack';
import { client, type ErrorBody } from '../support/http';

interface Page {
  data: unknown[];
  next_cursor: string | null;
}

let stack: Stack;
let a: { id: string; token: string; numbers: number[] };
let b: { id: string; token: string; numbers: number[] };

beforeAll(async () => {
  stack = await startStack();
  const orgA = await stack.createOrg();
  const orgB = await stack.createOrg();
  a = { id: orgA.id, token: (await stack.createKey(orgA.id)).token, numbers: await stack.createAccounts(orgA.id, 4) };
  b = { id: orgB.id, token: (await stack.createKey(orgB.id)).token, numbers: await stack.createAccounts(orgB.id, 4) };
  for (const [i, token] of [a.token, b.token].entries()) {
    for (let t = 0; t < 3; t += 1) {
      await client(stack.url, token).post('/v1/traders', '/v1/traders', { body: { name: `T${i}${t}`, email: `t${i}${t}@example.com` } });
    }
  }
});

afterAll(async () => {
  await stack?.stop();
});

const LISTS: Array<{ template: string; path: (org: typeof a) => string }> = [
  { template: '/v1/accounts', path: () => '/v1/accounts' },
  { template: '/v1/accounts', path: () => '/v1/accounts?status=active' },
  { template: '/v1/traders', path: () => '/v1/traders' },
  { template: '/v1/events', path: () => '/v1/events' },
  { template: '/v1/events', path: () => '/v1/events?type=account.created' },
];

async function firstCursor(org: typeof a, template: string, path: string): Promise<string> {
  const sep = path.includes('?') ? '&' : '?';
  const res = await client(stack.url, org.token).get<Page>(template, `${path}${sep}limit=1`);
  expect(res.status).toBe(200);
  expect(typeof res.body.next_cursor).toBe('string');
  return res.body.next_cursor as string;
}

async function pageWith(org: typeof a, template: string, path: string, cursor: string) {
  const sep = path.includes('?') ? '&' : '?';
  return client(stack.url, org.token).get<Page & ErrorBody>(template, `${path}${sep}limit=1&cursor=${encodeURIComponent(cursor)}`);
}

describe('sealed cursors', () => {
  it.each(LISTS)('a cursor of $template ($path) decodes to nothing readable', async ({ template, path }) => {
    const cursor = await firstCursor(a, template, path(a));
    const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
    expect(decoded).not.toMatch(/"[a-z]+":/);
    expect(() => JSON.parse(decoded)).toThrow();
    for (const n of [...a.numbers, ...b.numbers]) {
      expect(decoded).not.toContain(String(n));
      expect(cursor).not.toContain(String(n));
    }
    for (const id of [a.id, b.id]) expect(decoded).not.toContain(id);
    // Still a working cursor.
    expect((await pageWith(a, template, path(a), cursor)).status).toBe(200);
  });

  it('refuses a cursor with any one character changed', async () => {
    const cursor = await firstCursor(a, '/v1/accounts', '/v1/accounts');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i += 1) {
      const replacement = alphabet[(alphabet.indexOf(cursor[i] as string) + 1) % alphabet.length] as string;
      const tampered = `${cursor.slice(0, i)}${replacement}${cursor.slice(i + 1)}`;
      const res = await pageWith(a, '/v1/accounts', '/v1/accounts', tampered);
      expect([i, res.status, res.body.error?.code]).toEqual([i, 400, 'invalid_cursor']);
    }
    for (const broken of [cursor.slice(1), cursor.slice(0, -1), `${cursor}A`, `${cursor}=`, cursor.toUpperCase(), 'x', '.', `${cursor}.${cursor}`]) {
      const res = await pageWith(a, '/v1/accounts', '/v1/accounts', broken);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
  });

  it("refuses another organization's cursor and another list's or filter's cursor", async () => {
    for (const list of LISTS) {
      const cursorOfB = await firstCursor(b, list.template, list.path(b));
      const foreign = await pageWith(a, list.template, list.path(a), cursorOfB);
      expect([list.path(a), foreign.status, foreign.body.error?.code]).toEqual([list.path(a), 400, 'invalid_cursor']);
    }
    const accountsCursor = await firstCursor(a, '/v1/accounts', '/v1/accounts');
    for (const other of LISTS.slice(1)) {
      const res = await pageWith(a, other.template, other.path(a), accountsCursor);
      expect([other.path(a), res.status, res.body.error?.code]).toEqual([other.path(a), 400, 'invalid_cursor']);
    }
  });

  it("gives the event feed's cursors one length whatever the position, so nothing of others' volume shows", async () => {
    const lengths = new Set<number>();
    lengths.add((await firstCursor(a, '/v1/events', '/v1/events')).length);
    // Many events elsewhere move the global position by orders of magnitude.
    await stack.createAccounts(b.id, 200);
    lengths.add((await firstCursor(a, '/v1/events', '/v1/events')).length);
    const res = await client(stack.url, b.token).get<Page>('/v1/events', '/v1/events?limit=150');
    lengths.add((res.body.next_cursor as string).length);
    expect(lengths.size).toBe(1);
  });

  it('refuses a cursor of 20,000 characters with 400 invalid_cursor (not a bare 431)', async () => {
    const res = await pageWith(a, '/v1/accounts', '/v1/accounts', 'A'.repeat(20_000));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
    expect(res.headers.get('ratelimit-limit')).not.toBeNull();
  });
});
