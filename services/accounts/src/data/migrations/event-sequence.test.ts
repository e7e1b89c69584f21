import { randomUUID } from 'node:crypto';
import { migrate, openDatabase, QueryTypes, type Sequelize } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { MIGRATIONS, SCHEMA } from '../../main';

/**
 * The events written before sequences existed get theirs from migration 0008: per account, in
 * position order, 1 to N; events about no account (or naming no account of their organization and
 * mode) none; and each account's counter continues from its last number.
 */
let db: TestDatabase;
let sql: Sequelize;

beforeAll(async () => {
  db = await createTestDatabase('pd_event_sequence');
  sql = openDatabase({ url: db.url, schema: SCHEMA, poolMax: 2 });
  await migrate(sql, SCHEMA, MIGRATIONS.filter((m) => m.name !== '0009-event-sequence'));
});
afterAll(async () => {
  await sql?.close();
  await db?.drop();
});

async function rows<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
  return sql.query<T>(query, { replacements, type: QueryTypes.SELECT });
}

async function newAccount(org: string, livemode = true): Promise<number> {
  const [row] = await rows<{ number: string }>(
    `INSERT INTO accounts (organization_id, livemode, program, terms, initial_balance, balance, equity, peak_equity, executor_password_sealed)
     VALUES (:org, :livemode, 'standard', '{}'::jsonb, 100000, 100000, 100000, 100000, 'sealed') RETURNING number`,
    { org, livemode },
  );
  return Number(row.number);
}

async function event(org: string, type: string, data: Record<string, unknown>, livemode = true): Promise<void> {
  await sql.query(`INSERT INTO events (id, organization_id, livemode, type, data) VALUES (:id, :org, :livemode, :type, :data::jsonb)`, {
    replacements: { id: `evt_${randomUUID().replace(/-/g, '')}`, org, livemode, type, data: JSON.stringify(data) },
  });
}

it('numbers every account’s existing events in position order and continues each counter from its last', async () => {
  const org = randomUUID();
  const stranger = randomUUID();
  const [a, b] = [await newAccount(org), await newAccount(org)];
  const test = await newAccount(org, false);
  await event(org, 'account.created', { account: a });
  await event(org, 'account.created', { account: b });
  await event(org, 'credits.low', { remaining: 5, threshold: 10 });
  await event(org, 'account.assigned', { account: a, trader_id: null });
  await event(stranger, 'account.archived', { account: a }); // another organization cannot speak of it
  await event(org, 'position.opened', { account: String(b) }); // not a number: about no account
  await event(org, 'account.created', { account: test }, false);
  await event(org, 'account.archived', { account: a });

  await migrate(sql, SCHEMA, MIGRATIONS);

  const numbered = await rows<{ type: string; account_number: string | null; sequence: string | null }>(
    'SELECT type, account_number, sequence FROM events ORDER BY position',
  );
  expect(numbered.map((r) => [r.type, r.account_number === null ? null : Number(r.account_number), r.sequence === null ? null : Number(r.sequence)])).toEqual([
    ['account.created', a, 1],
    ['account.created', b, 1],
    ['credits.low', null, null],
    ['account.assigned', a, 2],
    ['account.archived', null, null],
    ['position.opened', null, null],
    ['account.created', test, 1],
    ['account.archived', a, 3],
  ]);
  const counters = await rows<{ number: string; event_sequence: string }>('SELECT number, event_sequence FROM accounts ORDER BY number');
  expect(counters.map((r) => [Number(r.number), Number(r.event_sequence)])).toEqual([
    [a, 3],
    [b, 1],
    [test, 1],
  ]);
  // A repeat is refused by the index.
  await expect(
    sql.query(`INSERT INTO events (id, organization_id, type, data, account_number, sequence) VALUES ('evt_repeat', :org, 'account.created', '{}', :a, 3)`, {
      replacements: { org, a },
    }),
  ).rejects.toMatchObject({ name: 'SequelizeUniqueConstraintError', parent: { constraint: 'events_account_sequence' } });
});
