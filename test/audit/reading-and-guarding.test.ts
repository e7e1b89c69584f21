/**
 * SPEC 14's audit log as a reader and as a guard: GET /v1/audit_events (its scope, filters,
 * paging across the three services that own changes, sealed cursors, isolation by organization
 * and mode), an account's timeline, and the table's promises: a refused change leaves no entry, a
 * failing entry fails its change, no one updates or deletes an entry, only the retention pass
 * removes old ones.
 */
import { randomUUID } from 'node:crypto';
import { request } from '../support/http';
import { startStack, type CreatedKey, type Organization, type Stack } from '../support/stack';
import { AUDIT_SCOPES, AUDITED_SCHEMAS, v1, wholeLog, withDatabase, type AuditEntryJson } from './audit-helpers';

let stack: Stack;
let org: Organization;
let key: CreatedKey;
let testKey: CreatedKey;

beforeAll(async () => {
  stack = await startStack();
  org = await stack.createOrg();
  key = await stack.createKey(org.id, AUDIT_SCOPES, 'live reader');
  testKey = await stack.createKey(org.id, AUDIT_SCOPES, 'test reader', { mode: 'test' });
});

afterAll(async () => {
  await stack?.stop();
});

type Page = { data: AuditEntryJson[]; next_cursor: string | null };
const list = (token: string, query: string) => v1<Page>(stack, token, 'GET', '/v1/audit_events', `/v1/audit_events?${query}`);

/** Changes in each of the three services, interleaved: webhooks, accounts, auth (by the CLI-less admin: the system). */
async function interleavedChanges(token: string, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await v1(stack, token, 'POST', '/v1/webhooks', '/v1/webhooks', { url: `https://127.0.0.1:9/r${i}`, events: [] });
    await v1(stack, token, 'POST', '/v1/traders', '/v1/traders', { name: `T${i}`, email: `t${i}-${randomUUID()}@example.com` });
    await v1(stack, token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1 });
  }
}

describe('GET /v1/audit_events', () => {
  beforeAll(async () => {
    await interleavedChanges(key.token, 4);
    await interleavedChanges(testKey.token, 1);
  });

  it('needs audit:read: a key without it gets 403 missing_scope naming it', async () => {
    const reader = await stack.createKey(org.id, ['accounts:read']);
    const refused = await list(reader.token, '');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'missing_scope', message: expect.stringContaining('audit:read') });
  });

  it('pages the three services\' entries newest first, with no repeat and no gap, whatever the page size', async () => {
    const whole = await wholeLog(stack, key.token);
    const services = new Set(whole.map((e) => e.action.split('.')[0]));
    // auth (organization, api_key), accounts (account, trader), webhooks (webhook).
    expect([...services].sort()).toEqual(['account', 'api_key', 'organization', 'trader', 'webhook']);
    const times = whole.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    for (const size of [1, 2, 5]) {
      const paged = await wholeLog(stack, key.token, '', size);
      expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id));
    }
  });

  it('entries made while a reader pages neither repeat nor push others off', async () => {
    const first = await list(key.token, 'limit=3');
    await interleavedChanges(key.token, 1);
    const seen = [...first.body.data];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await list(key.token, `limit=3&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...next.body.data);
      cursor = next.body.next_cursor;
    }
    const before = (await wholeLog(stack, key.token)).filter((e) => e.created_at <= first.body.data[0].created_at);
    expect(seen.map((e) => e.id)).toEqual(before.map((e) => e.id));
  });

  it('filters by action, target, actor and time, alone or together', async () => {
    const whole = await wholeLog(stack, key.token);
    const webhooks = await wholeLog(stack, key.token, 'action=webhook.create');
    expect(webhooks.map((e) => e.id)).toEqual(whole.filter((e) => e.action === 'webhook.create').map((e) => e.id));
    const account = whole.find((e) => e.action === 'account.create') as AuditEntryJson;
    expect((await wholeLog(stack, key.token, `target_type=account&target_id=${account.target.id}`)).map((e) => e.id)).toEqual([account.id]);
    const byKey = await wholeLog(stack, key.token, `actor_id=${key.id}`);
    expect(byKey.map((e) => e.id)).toEqual(whole.filter((e) => e.actor.id === key.id).map((e) => e.id));
    const middle = whole[Math.floor(whole.length / 2)] as AuditEntryJson;
    const older = await wholeLog(stack, key.token, `created_before=${encodeURIComponent(middle.created_at)}`);
    expect(older.length).toBeGreaterThan(0);
    expect(older.every((e) => e.created_at < middle.created_at)).toBe(true);
    const newer = await wholeLog(stack, key.token, `created_after=${encodeURIComponent(middle.created_at)}&action=trader.create`);
    expect(newer.every((e) => e.created_at >= middle.created_at && e.action === 'trader.create')).toBe(true);
    const bad = await list(key.token, 'created_after=yesterday');
    expect([bad.status, bad.body.error?.param]).toEqual([400, 'created_after']);
  });

  it('a filter value that cannot match is 400 naming the filter and what it takes, as every list filter, not an empty page', async () => {
    const everyType = ['account', 'trader', 'program', 'position', 'payout', 'webhook', 'api_key', 'user', 'organization', 'news_event', 'test_clock'];
    const unknownType = await list(key.token, 'target_type=acount');
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error).toEqual({ code: 'invalid_request', param: 'target_type', message: `target_type must be one of ${everyType.join(', ')}` });
    for (const type of everyType) expect((await list(key.token, `target_type=${type}`)).status).toBe(200);
    expect((await list(key.token, 'target_type=')).status).toBe(200);
    const action = await list(key.token, 'action=Account.Halt');
    expect(action.body.error).toEqual({ code: 'invalid_request', param: 'action', message: 'action must be resource.verb in lower case, e.g. account.halt, at most 100 characters' });
    const target = await list(key.token, `target_id=${encodeURIComponent('1000001;drop')}`);
    expect([target.status, target.body.error?.param, target.body.error?.message]).toEqual([400, 'target_id', expect.stringMatching(/^target_id must be letters, digits/)]);
  });

  it('a tampered cursor, or one of another filter, mode or organization, is invalid_cursor', async () => {
    const page = await list(key.token, 'limit=2');
    const cursor = page.body.next_cursor as string;
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    for (const [token, query] of [
      [key.token, `cursor=${flipped}`],
      [key.token, `cursor=${cursor}&action=account.create`],
      [testKey.token, `cursor=${cursor}`],
      [(await stack.createKey((await stack.createOrg()).id, ['audit:read'])).token, `cursor=${cursor}`],
    ] as const) {
      const refused = await list(token, query);
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'invalid_cursor']);
    }
  });

  it('a key sees its own mode of its own organization only', async () => {
    const test = await wholeLog(stack, testKey.token);
    expect(test.length).toBeGreaterThanOrEqual(3);
    expect(test.every((e) => e.livemode === false)).toBe(true);
    const live = await wholeLog(stack, key.token);
    expect(live.every((e) => e.livemode === true)).toBe(true);
    expect(live.some((e) => test.some((t) => t.id === e.id))).toBe(false);
    const stranger = await stack.createKey((await stack.createOrg()).id, ['audit:read']);
    expect((await wholeLog(stack, stranger.token)).filter((e) => e.actor.id === key.id)).toEqual([]);
  });
});

describe('GET /v1/accounts/{number}/timeline', () => {
  type Item = { kind: 'event'; event: { id: string; type: string; created_at: string } } | { kind: 'audit_entry'; audit_entry: AuditEntryJson };
  const timeline = (token: string, number: number, query = '') =>
    v1<{ data: Item[]; next_cursor: string | null }>(stack, token, 'GET', '/v1/accounts/{number}/timeline', `/v1/accounts/${number}/timeline${query}`);

  it("merges the account's events and its audit entries, newest first, paged", async () => {
    const [number] = (await v1<{ data: Array<{ number: number }> }>(stack, key.token, 'POST', '/v1/accounts', '/v1/accounts', { count: 1 })).body.data.map((a) => a.number);
    await v1(stack, key.token, 'PUT', '/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, { name: 'Tim', email: `tim-${randomUUID()}@example.com` });
    await v1(stack, key.token, 'POST', '/v1/accounts/{number}/archive', `/v1/accounts/${number}/archive`);
    const whole = await timeline(key.token, number, '?limit=200');
    const kinds = whole.body.data.map((item) => (item.kind === 'event' ? item.event.type : item.audit_entry.action));
    expect([...kinds].sort()).toEqual(['account.archive', 'account.archived', 'account.assign', 'account.assigned', 'account.create', 'account.created'].sort());
    const times = whole.body.data.map((item) => (item.kind === 'event' ? item.event.created_at : item.audit_entry.created_at));
    expect([...times].sort().reverse()).toEqual(times);
    expect(kinds.indexOf('account.archive')).toBeLessThan(kinds.indexOf('account.create'));

    const paged: Item[] = [];
    let cursor: string | null = null;
    do {
      const page = await timeline(key.token, number, `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      paged.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(whole.body.data);

    const elsewhere = await stack.createKey((await stack.createOrg()).id);
    expect((await timeline(elsewhere.token, number)).status).toBe(404);
    expect((await timeline(testKey.token, number)).status).toBe(404);
  });
});

describe('the guarantees of the table', () => {
  const entriesFor = async (targetId: string) => wholeLog(stack, key.token, `target_id=${targetId}`);

  it('a refused change leaves no entry', async () => {
    const [number] = await stack.createAccounts(org.id, 1);
    await v1(stack, key.token, 'POST', '/v1/accounts/{number}/archive', `/v1/accounts/${number}/archive`);
    const before = await entriesFor(String(number));
    const refused = await v1(stack, key.token, 'PUT', '/v1/accounts/{number}/trader', `/v1/accounts/${number}/trader`, { name: 'No', email: 'no@example.com' });
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'account_archived']);
    const noScope = await stack.createKey(org.id, ['accounts:read']);
    expect((await v1(stack, noScope.token, 'POST', '/v1/accounts/{number}/archive', `/v1/accounts/${number}/archive`)).status).toBe(403);
    expect(await entriesFor(String(number))).toEqual(before);
  });

  it('a write retried with its Idempotency-Key is replayed, not made again: one entry', async () => {
    const keyed = (idempotencyKey: string) =>
      request<{ data: Array<{ number: number }> }>(stack.url, 'POST', '/v1/accounts', { token: key.token, template: '/v1/accounts', headers: { 'idempotency-key': idempotencyKey }, body: { count: 1 } });
    const idempotencyKey = `audit-${randomUUID()}`;
    const first = await keyed(idempotencyKey);
    const retried = await keyed(idempotencyKey);
    expect(retried.body).toEqual(first.body);
    expect((await entriesFor(String(first.body.data[0]?.number))).map((e) => e.action)).toEqual(['account.create']);
  });

  it('a failing audit write rolls the change back: no archive, no event', async () => {
    const [number] = await stack.createAccounts(org.id, 1);
    await withDatabase(stack, (db) =>
      db.query(`
        CREATE FUNCTION accounts.refuse_archive_entry() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.action = 'account.archive' AND NEW.target_id = '${number}' THEN RAISE EXCEPTION 'simulated audit failure'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse_archive_entry BEFORE INSERT ON accounts.audit_entries FOR EACH ROW EXECUTE FUNCTION accounts.refuse_archive_entry();`),
    );
    try {
      const failed = await v1(stack, key.token, 'POST', '/v1/accounts/{number}/archive', `/v1/accounts/${number}/archive`);
      expect([failed.status, failed.body.error?.code]).toEqual([500, 'internal_error']);
    } finally {
      await withDatabase(stack, (db) => db.query('DROP TRIGGER refuse_archive_entry ON accounts.audit_entries; DROP FUNCTION accounts.refuse_archive_entry();'));
    }
    const account = await v1<{ status: string }>(stack, key.token, 'GET', '/v1/accounts/{number}', `/v1/accounts/${number}`);
    expect(account.body.status).toBe('active');
    const archivedEvents = await withDatabase(stack, (db) => db.query(`SELECT 1 FROM accounts.events WHERE type = 'account.archived' AND data->>'account' = $1`, [String(number)]));
    expect(archivedEvents.rowCount).toBe(0);
    expect((await entriesFor(String(number))).map((e) => e.action)).toEqual(['account.create']);
  });

  it("UPDATE and DELETE on every service's audit_entries fail, for the services' own role", async () => {
    for (const schema of AUDITED_SCHEMAS) {
      await withDatabase(stack, async (db) => {
        const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${schema}.audit_entries`);
        expect(Number(rows[0]?.n)).toBeGreaterThan(0);
        await expect(db.query(`UPDATE ${schema}.audit_entries SET actor_label = 'someone else'`)).rejects.toThrow(/append-only/);
        await expect(db.query(`DELETE FROM ${schema}.audit_entries`)).rejects.toThrow(/append-only/);
        await expect(db.query(`TRUNCATE ${schema}.audit_entries`)).rejects.toThrow(/append-only/);
        expect((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${schema}.audit_entries`)).rows[0]?.n).toBe(rows[0]?.n);
      });
    }
  });

  it('the retention pass removes entries older than AUDIT_RETENTION (400 days), and only those', async () => {
    const aged = `aud_${'0'.repeat(12)}${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const young = `aud_${'0'.repeat(11)}1${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    await withDatabase(stack, (db) =>
      db.query(
        `INSERT INTO accounts.audit_entries (id, organization_id, livemode, created_at, actor_type, actor_id, actor_label, action, target_type, target_id)
         VALUES ($1, $3, true, now() - interval '401 days', 'operator', 'cli', 'cli', 'account.archive', 'account', '1'),
                ($2, $3, true, now() - interval '399 days', 'operator', 'cli', 'cli', 'account.archive', 'account', '1')`,
        [aged, young, org.id],
      ),
    );
    const total = async () => Number((await withDatabase(stack, (db) => db.query<{ n: string }>('SELECT count(*)::text AS n FROM accounts.audit_entries'))).rows[0]?.n);
    const before = await total();
    const removed = await stack.services.accounts.retention?.runOnce();
    expect(removed?.['audit entries']).toBe(1);
    expect(await total()).toBe(before - 1);
    const left = await withDatabase(stack, (db) => db.query<{ id: string }>('SELECT id FROM accounts.audit_entries WHERE id = ANY($1)', [[aged, young]]));
    expect(left.rows.map((r) => r.id)).toEqual([young]);
  });
});
