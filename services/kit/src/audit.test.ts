import { randomUUID } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { auditEntriesPage, mergeAuditPages, type AuditEntriesPage } from './audit-listing';
import { AUDIT_ENTRIES_DDL, auditRetention, auditRetentionSchema } from './audit-table';
import { newAuditId, recordAudit, recordAudits, withoutSecrets } from './audit';
import { actorOf, clientIpOf, runWithContext, setActorMetadata, type Actor } from './context';
import { createCursorCodec } from './cursor';
import { migrate, openDatabase, type Sequelize } from './db';
import { Mode } from './tenant';
import { execute, selectRows } from './sql';
import { createTestDatabase, type TestDatabase } from './testing';

let db: TestDatabase;
let sequelize: Sequelize;
const cursors = createCursorCodec('audit-test-cursor-secret');
const KEY: Actor = { type: 'api_key', id: randomUUID(), label: 'pfx_live_abcdefgh' };

beforeAll(async () => {
  db = await createTestDatabase('pd_kit_audit');
  sequelize = openDatabase({ url: db.url, schema: 'audited' });
  await migrate(sequelize, 'audited', [{ name: '0001', up: ({ sql }) => sql(`${AUDIT_ENTRIES_DDL}; CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL);`) }]);
});

afterAll(async () => {
  await sequelize.close();
  await db.drop();
});

const entries = (org: string) =>
  selectRows<{ id: string; actor_type: string; actor_id: string; actor_label: string; request_id: string | null; ip: string | null; action: string; changes: object }>(
    sequelize,
    'SELECT * FROM audit_entries WHERE organization_id = $org ORDER BY created_at, id',
    { org },
  );

describe('the actor travels in gRPC metadata', () => {
  it('type, id and label, and the client IP, read back as they were set', () => {
    const metadata = new Metadata();
    setActorMetadata(metadata, KEY, '203.0.113.9');
    expect(actorOf(metadata)).toEqual(KEY);
    expect(clientIpOf(metadata)).toBe('203.0.113.9');
  });

  it('a label beyond printable ASCII (an email with an accent) travels as UTF-8 and reads back the same', () => {
    const metadata = new Metadata();
    const user: Actor = { type: 'user', id: randomUUID(), label: 'zoë@example.com' };
    setActorMetadata(metadata, user, undefined);
    expect(actorOf(metadata)).toEqual(user);
    expect(clientIpOf(metadata)).toBeUndefined();
  });

  it('an unknown actor type is no actor at all', () => {
    const metadata = new Metadata();
    metadata.set('x-actor-type', 'root');
    metadata.set('x-actor-id', 'me');
    expect(actorOf(metadata)).toBeUndefined();
  });
});

describe('secrets never reach an entry', () => {
  it('secret fields go at any depth, whatever their spelling; other fields stay', () => {
    expect(
      withoutSecrets({
        name: ['a', 'b'],
        secret: [null, 'whsec_x'],
        nested: { previousSecret: 'whsec_y', kept: 1, list: [{ TOKEN: 'pfx_live_x', label: 'ok' }] },
        password_hash: ['h1', 'h2'],
        executor_password: 'p',
      }),
    ).toEqual({ name: ['a', 'b'], nested: { kept: 1, list: [{ label: 'ok' }] } });
  });
});

describe('recordAudit', () => {
  it('writes one entry in the change\'s transaction, with the actor, request id and IP of the request context', async () => {
    const org = randomUUID();
    await runWithContext({ requestId: 'req-1', actor: KEY, ip: '198.51.100.7' }, () =>
      sequelize.transaction(async (tx) => {
        await execute(sequelize, 'INSERT INTO things (name) VALUES ($name)', { name: 'x' }, tx);
        await recordAudit(tx, { scope: { organizationId: org, livemode: true }, action: 'thing.create', target: { type: 'program', id: '1' }, changes: { name: [null, 'x'], token: [null, 'pfx_live_secret'] } });
      }),
    );
    expect(await entries(org)).toEqual([
      expect.objectContaining({ actor_type: 'api_key', actor_id: KEY.id, actor_label: KEY.label, request_id: 'req-1', ip: '198.51.100.7', action: 'thing.create', changes: { name: [null, 'x'] } }),
    ]);
  });

  it('a call that names no actor is the system\'s', async () => {
    const org = randomUUID();
    await sequelize.transaction((tx) => recordAudit(tx, { scope: { organizationId: org, livemode: false }, action: 'thing.update', target: { type: 'program', id: '2' } }));
    expect(await entries(org)).toEqual([expect.objectContaining({ actor_type: 'operator', actor_id: 'system', actor_label: 'system', request_id: null, ip: null })]);
  });

  it('a change that rolls back leaves no entry', async () => {
    const org = randomUUID();
    await expect(
      sequelize.transaction(async (tx) => {
        await recordAudit(tx, { scope: { organizationId: org, livemode: true }, action: 'thing.create', target: { type: 'program', id: '3' } });
        throw new Error('refused after all');
      }),
    ).rejects.toThrow('refused after all');
    expect(await entries(org)).toEqual([]);
  });

  it('several entries of one request go in one statement', async () => {
    const org = randomUUID();
    const scope = { organizationId: org, livemode: true };
    await runWithContext({ requestId: 'req-batch', actor: KEY }, () =>
      sequelize.transaction((tx) => recordAudits(tx, [1, 2, 3].map((n) => ({ scope, action: 'thing.create', target: { type: 'program', id: String(n) }, changes: { n: [null, n] } })))),
    );
    const rows = await entries(org);
    expect(rows.map((r) => [r.request_id, r.changes])).toEqual([1, 2, 3].map((n) => ['req-batch', { n: [null, n] }]));
  });

  it('ids sort in the order they were made, within a millisecond too', () => {
    const ids = Array.from({ length: 50 }, () => newAuditId(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^aud_[0-9a-f]{32}$/);
  });
});

describe('the table is append-only', () => {
  it('UPDATE, DELETE and TRUNCATE are refused, even for the service\'s own role', async () => {
    const org = randomUUID();
    await sequelize.transaction((tx) => recordAudit(tx, { scope: { organizationId: org, livemode: true }, action: 'thing.create', target: { type: 'program', id: '9' } }));
    await expect(execute(sequelize, "UPDATE audit_entries SET action = 'thing.delete' WHERE organization_id = $org", { org })).rejects.toThrow(/append-only/);
    await expect(execute(sequelize, 'DELETE FROM audit_entries WHERE organization_id = $org', { org })).rejects.toThrow(/append-only/);
    await expect(sequelize.query('TRUNCATE audit_entries')).rejects.toThrow(/append-only/);
    // Opening the gate for "now" does not make a recent entry deletable.
    await expect(
      sequelize.transaction(async (tx) => {
        await sequelize.query("SELECT set_config('propdesk.audit_retention_cutoff', now()::text, true)", { transaction: tx });
        await execute(sequelize, 'DELETE FROM audit_entries WHERE organization_id = $org', { org }, tx);
      }),
    ).rejects.toThrow(/append-only/);
    expect(await entries(org)).toHaveLength(1);
  });

  it('the retention pass removes entries older than AUDIT_RETENTION, and only those', async () => {
    const org = randomUUID();
    const horizon = auditRetentionSchema.parse({}).AUDIT_RETENTION;
    expect(horizon).toBe(400 * 86_400_000);
    const insertAged = (id: string, days: number) =>
      execute(
        sequelize,
        `INSERT INTO audit_entries (id, organization_id, livemode, created_at, actor_type, actor_id, actor_label, action, target_type, target_id)
         VALUES ($id, $org, true, now() - make_interval(days => $days), 'operator', 'cli', 'cli', 'thing.create', 'thing', $id)`,
        { id, org, days },
      );
    await insertAged(newAuditId(), 401);
    const kept = [newAuditId(), newAuditId()];
    await insertAged(kept[0], 399);
    await insertAged(kept[1], 0);
    const removed = await auditRetention(sequelize, horizon).run(new Date(Date.now() - horizon));
    expect(removed).toBeGreaterThanOrEqual(1);
    expect((await entries(org)).map((e) => e.id).sort()).toEqual(kept.sort());
  });

  it('AUDIT_RETENTION is a duration of at least a day, or off', () => {
    expect(auditRetentionSchema.parse({ AUDIT_RETENTION: '30d' }).AUDIT_RETENTION).toBe(30 * 86_400_000);
    expect(auditRetentionSchema.parse({ AUDIT_RETENTION: 'off' }).AUDIT_RETENTION).toBe(0);
    expect(() => auditRetentionSchema.parse({ AUDIT_RETENTION: '2h' })).toThrow();
  });
});

describe('listing', () => {
  const org = randomUUID();
  const scope = { organizationId: org, livemode: true };

  beforeAll(async () => {
    for (let i = 0; i < 7; i += 1) {
      await sequelize.transaction((tx) => recordAudit(tx, { scope, action: i % 2 ? 'thing.update' : 'thing.create', target: { type: 'program', id: String(i) } }));
    }
    await sequelize.transaction((tx) => recordAudit(tx, { scope: { organizationId: org, livemode: false }, action: 'thing.create', target: { type: 'program', id: 'test' } }));
  });

  const page = (pageToken: string, query: { action?: string } = {}, mode = Mode.MODE_LIVE): Promise<AuditEntriesPage> =>
    auditEntriesPage(sequelize, cursors, { organizationId: org, mode, query: { action: '', targetType: '', targetId: '', actorId: '', ...query }, pageSize: 3, pageToken });

  it('pages newest first with no repeat and no gap, one mode only', async () => {
    const seen: string[] = [];
    let token = '';
    do {
      const p = await page(token);
      seen.push(...p.entries.map((e) => e.targetId));
      token = p.nextPageToken;
    } while (token);
    expect(seen).toEqual(['6', '5', '4', '3', '2', '1', '0']);
    expect((await page('', {}, Mode.MODE_TEST)).entries.map((e) => e.targetId)).toEqual(['test']);
  });

  it('filters, and a cursor of one filter or mode is invalid_cursor in another', async () => {
    const updates = await page('', { action: 'thing.update' });
    expect(updates.entries.map((e) => e.targetId)).toEqual(['5', '3', '1']);
    await expect(page(updates.cursors[0], {})).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(page(updates.cursors[0], { action: 'thing.update' }, Mode.MODE_TEST)).rejects.toMatchObject({ code: 'invalid_cursor' });
    expect((await page(updates.cursors[0], { action: 'thing.update' })).entries.map((e) => e.targetId)).toEqual(['3', '1']);
  });

  it('merging pages keeps the newest, and the cursor of the last one kept', async () => {
    const first = await page('');
    const split = (p: AuditEntriesPage, keep: (i: number) => boolean): AuditEntriesPage => ({
      entries: p.entries.filter((_, i) => keep(i)),
      cursors: p.cursors.filter((_, i) => keep(i)),
      nextPageToken: '',
    });
    const merged = mergeAuditPages([split(first, (i) => i !== 1), split(first, (i) => i === 1), { ...first, entries: [], cursors: [], nextPageToken: first.nextPageToken }], 2);
    expect(merged.entries.map((e) => e.targetId)).toEqual(['6', '5']);
    expect((await page(merged.nextPageToken)).entries.map((e) => e.targetId)).toEqual(['4', '3', '2']);
  });
});
